// What the device verification pages (RFC 8628 3.3) share: the flow cookie that carries the browser through and is
// the CSRF token of every form, the request bound to it, their language, their refusal and the sign-in page.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import { boundDeviceAuthorization, type PendingDeviceAuthorization } from '../../domain/device-flow/device-authorization.js';
import { single, type RawParams } from '../../domain/params.js';
import { safeEqual } from '../../domain/secrets.js';
import type { MessageKey } from '../../i18n/catalog.js';
import { deviceFlowCookie } from '../cookies.js';
import { pageLanguage, type PageLanguage } from '../page-language.js';
import { PAGE_HEADERS } from '../views/layout.js';
import { LOGIN_PAGE_HEADERS, loginPage } from '../views/pages.js';
import { pageErrors } from './page-errors.js';

export interface DeviceVerificationOptions {
  ctx: ProviderContext;
  onMessagesQueued?: () => void;
}

export const START_AGAIN = 'device.startAgain';
const FORM_EXPIRED = 'device.formExpired';

/** The flow cookie is 256 random bits in base64url; anything else counts as absent. */
const FLOW_SECRET = /^[A-Za-z0-9_-]{43}$/;

/** Every form of the device verification pages. */
export const formSchema = {
  type: 'object',
  properties: {
    csrf: { type: 'string' },
    user_code: { type: 'string' },
    login: { type: 'string' },
    password: { type: 'string' },
    decision: { type: 'string', enum: ['approve', 'deny'] },
  },
} as const;

/** Thrown where the page cannot go on; shown on the error page, never redirected. */
export class VerificationError extends Error {
  constructor(readonly key: MessageKey) {
    super(key);
  }
}

export function deviceVerificationKit(ctx: ProviderContext) {
  const entryAction = `${ctx.config.issuer}/device`;
  const confirmAction = `${ctx.config.issuer}/device/confirm`;
  const loginAction = `${ctx.config.issuer}/device/login`;
  const page = (reply: FastifyReply, status: number, body: string) => reply.code(status).headers(PAGE_HEADERS).send(body);

  const flowSecret = (request: FastifyRequest): string | undefined => {
    const value = request.cookies[deviceFlowCookie(ctx.config).name];
    return value && FLOW_SECRET.test(value) ? value : undefined;
  };
  const setFlowSecret = (reply: FastifyReply, value: string) => {
    const cookie = deviceFlowCookie(ctx.config);
    reply.setCookie(cookie.name, value, cookie.options);
  };
  const clearFlowSecret = (reply: FastifyReply) => {
    const cookie = deviceFlowCookie(ctx.config);
    reply.clearCookie(cookie.name, cookie.options);
  };

  /** The flow secret of a form post: the CSRF field must equal the cookie. */
  function postedSecret(request: FastifyRequest<{ Body: RawParams }>): string {
    const secret = flowSecret(request);
    const csrf = single(request.body, 'csrf');
    if (!secret || !csrf || !safeEqual(csrf, secret)) throw new VerificationError(FORM_EXPIRED);
    return secret;
  }

  /** The request whose code this browser typed. */
  async function pendingFor(secret: string): Promise<PendingDeviceAuthorization> {
    const pending = await boundDeviceAuthorization(ctx, secret);
    if (!pending) throw new VerificationError(START_AGAIN);
    return pending;
  }

  /** Pages outside an authorization request speak the browser's language (Accept-Language), else DEFAULT_LOCALE. */
  const language = (request: FastifyRequest) => pageLanguage(request, ctx.config);

  const signInPage = (
    reply: FastifyReply,
    t: PageLanguage,
    status: number,
    secret: string,
    pending: PendingDeviceAuthorization,
    login?: string,
    error?: string,
  ) =>
    reply
      .code(status)
      .headers(LOGIN_PAGE_HEADERS)
      .send(loginPage(t, { action: loginAction, csrfToken: secret, clientName: pending.clientName, login, error }));

  const withPageErrors = pageErrors({ isRefusal: (err) => err instanceof VerificationError, language });

  return {
    entryAction,
    confirmAction,
    page,
    flowSecret,
    setFlowSecret,
    clearFlowSecret,
    postedSecret,
    pendingFor,
    language,
    signInPage,
    withPageErrors,
  };
}
