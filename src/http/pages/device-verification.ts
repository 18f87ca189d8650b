// The device verification page (RFC 8628 3.3): the user types the code shown on the device; device-confirmation.ts
// then signs them in if needed (the same password form, risk evaluation and second factor as every sign-in) and takes
// their approval or denial.
//
// One cookie (http/cookies.ts deviceFlowCookie) carries the browser through: its value is the CSRF token of every
// form, and a new one, bound to the request whose code was typed, is issued at each code entry. No script; every
// step works as plain form posts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { enterUserCode, formatUserCode, normaliseUserCode } from '../../domain/device-flow/device-authorization.js';
import { single, type RawParams } from '../../domain/params.js';
import { randomToken } from '../../domain/secrets.js';
import { seeOther } from '../redirect.js';
import type { PageText } from '../views/layout.js';
import deviceConfirmationRoutes from './device-confirmation.js';
import { deviceVerificationKit, formSchema, type DeviceVerificationOptions } from './device-verification-kit.js';
import { userCodePage } from './views/device-pages.js';

const WRONG_CODE = 'device.wrongCode';

const querySchema = { type: 'object', properties: { user_code: { type: 'string' } } } as const;

export default async function deviceVerificationRoutes(app: FastifyInstance, opts: DeviceVerificationOptions) {
  const { ctx } = opts;
  const { entryAction, confirmAction, page, flowSecret, setFlowSecret, postedSecret, language, withPageErrors } =
    deviceVerificationKit(ctx);

  /** This browser's flow secret, a new one set when it has none. */
  function flowSecretOrNew(request: FastifyRequest, reply: FastifyReply): string {
    const current = flowSecret(request);
    if (current) return current;
    const secret = randomToken();
    setFlowSecret(reply, secret);
    return secret;
  }

  /** The code entry page again, with the code as typed and why it was not taken. */
  const codeRefused = (reply: FastifyReply, t: PageText, status: number, secret: string, typed: string, error: string) =>
    page(reply, status, userCodePage(t, { action: entryAction, csrfToken: secret, userCode: typed.slice(0, 32), error }));

  // RFC 8628 3.3: the verification URI, with the user code already in it when the device showed
  // verification_uri_complete (3.3.1). Nothing is looked up here: only a posted code counts as an entry.
  app.get<{ Querystring: { user_code?: string } }>(
    '/device',
    { schema: { querystring: querySchema }, config: { html: true } },
    async (request, reply) => {
      const secret = flowSecretOrNew(request, reply);
      const linked = request.query.user_code;
      const normalised = linked === undefined ? undefined : normaliseUserCode(linked);
      const userCode = normalised ? formatUserCode(normalised) : linked?.slice(0, 32);
      const body = userCodePage(language(request), {
        action: entryAction,
        csrfToken: secret,
        userCode,
        fromLink: normalised !== undefined,
      });
      return page(reply, 200, body);
    },
  );

  app.post<{ Body: RawParams }>(
    '/device',
    { schema: { body: formSchema }, config: { html: true } },
    withPageErrors(async (request, reply) => {
      const secret = postedSecret(request);
      const t = language(request);
      const typed = single(request.body, 'user_code') ?? '';
      const next = randomToken();
      const entry = await enterUserCode(ctx, typed, request.ip, next);
      if (entry.kind === 'bound') {
        setFlowSecret(reply, next);
        return seeOther(reply, confirmAction);
      }
      if (entry.kind === 'throttled') {
        // RFC 6585 4: 429 Too Many Requests, with Retry-After.
        reply.header('retry-after', String(entry.retryAfterSeconds));
        return codeRefused(reply, t, 429, secret, typed, t.plural('common.tooManyAttempts', entry.retryAfterSeconds));
      }
      return codeRefused(reply, t, 400, secret, typed, t(WRONG_CODE));
    }),
  );

  await app.register(deviceConfirmationRoutes, opts);
}
