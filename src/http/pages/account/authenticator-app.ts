// /account/totp: the person sets up an authenticator app (TOTP) after a recent sign-in, confirms it with a code, and
// removes it with one of its codes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accountFormToken } from '../../../domain/accounts/account-forms.js';
import {
  beginEnrolment,
  confirmEnrolment,
  pendingEnrolment,
  removeAuthenticator,
  type CodeCheck,
} from '../../../domain/accounts/authenticator.js';
import { single, type RawParams } from '../../../domain/params.js';
import { seeOther } from '../../redirect.js';
import type { PageText } from '../../views/layout.js';
import { totpEnrolmentPage } from '../views/account-pages.js';
import { waitTime } from '../views/wait-time.js';
import {
  accountKit,
  ENROLMENT_FINISH_MAX_AUTH_AGE_SECONDS,
  ENROLMENT_START_MAX_AUTH_AGE_SECONDS,
  formSchema,
  type AccountRoutesOptions,
} from './account-kit.js';
import type { SignedIn } from './account-session.js';

const WRONG_CODE = 'totp.wrongCode';
const tooManyCodes = (t: PageText, seconds: number) => t('totp.tooManyCodes', { wait: waitTime(t, seconds) });

/** A refused code: the same page again, saying why. */
function codeRefusal(t: PageText, check: Exclude<CodeCheck, { kind: 'accepted' } | { kind: 'none' }>): { status: number; error: string } {
  return check.kind === 'locked' ? { status: 429, error: tooManyCodes(t, check.retryAfterSeconds) } : { status: 400, error: t(WRONG_CODE) };
}

/** The QR code of the otpauth URI, as a data: URL (the page's policy allows images from data: URLs only). */
async function qrDataUrl(uri: string): Promise<string> {
  // qrcode is loaded here, on the first enrolment, not at start (scripts/build.ts keeps it out of the server bundle).
  const { default: QRCode } = await import('qrcode');
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}

export default async function authenticatorAppRoutes(app: FastifyInstance, opts: AccountRoutesOptions) {
  const { ctx } = opts;
  const { base, signInUrl, page, language, signedIn, formPost, renderAccount, recentSignIn } = accountKit(ctx);

  /** The enrolment page: the pending secret as a QR code and as text, with the form to confirm it. */
  async function renderEnrolment(request: FastifyRequest, reply: FastifyReply, who: SignedIn, status: number, error?: string) {
    const pending = await pendingEnrolment(ctx, who.user);
    if (!pending) return seeOther(reply, base);
    const body = totpEnrolmentPage(language(request), {
      base,
      csrfToken: accountFormToken(who.cookie),
      qrDataUrl: await qrDataUrl(pending.uri),
      manualKey: pending.manualKey,
      error,
    });
    return page(reply, status, body);
  }

  app.post<{ Body: RawParams }>('/account/totp', { schema: { body: formSchema }, config: { html: true } }, async (request, reply) => {
    const who = await formPost(request, reply);
    if (!who || !recentSignIn(reply, who, ENROLMENT_START_MAX_AUTH_AGE_SECONDS)) return reply;
    if (!(await beginEnrolment(ctx, who.user.id))) {
      return renderAccount(request, reply, who, 409, { error: language(request)('totp.already') });
    }
    return seeOther(reply, `${base}/totp`);
  });

  app.get('/account/totp', { config: { html: true } }, async (request, reply) => {
    const who = await signedIn(request);
    if (!who) return seeOther(reply, signInUrl);
    if (!recentSignIn(reply, who, ENROLMENT_FINISH_MAX_AUTH_AGE_SECONDS)) return reply;
    return renderEnrolment(request, reply, who, 200);
  });

  app.post<{ Body: RawParams }>(
    '/account/totp/confirm',
    { schema: { body: formSchema }, config: { html: true } },
    async (request, reply) => {
      const who = await formPost(request, reply);
      if (!who || !recentSignIn(reply, who, ENROLMENT_FINISH_MAX_AUTH_AGE_SECONDS)) return reply;
      if (!(await pendingEnrolment(ctx, who.user))) return seeOther(reply, base);
      const check = await confirmEnrolment(ctx, who.user.id, single(request.body, 'code') ?? '');
      if (check.kind === 'accepted') return seeOther(reply, `${base}?done=totp-enrolled`);
      if (check.kind === 'none') return seeOther(reply, base);
      const { status, error } = codeRefusal(language(request), check);
      return renderEnrolment(request, reply, who, status, error);
    },
  );

  app.post<{ Body: RawParams }>(
    '/account/totp/remove',
    { schema: { body: formSchema }, config: { html: true } },
    async (request, reply) => {
      const who = await formPost(request, reply);
      if (!who) return reply;
      const check = await removeAuthenticator(ctx, who.user.id, single(request.body, 'code') ?? '');
      if (check.kind === 'accepted') return seeOther(reply, `${base}?done=totp-removed`);
      if (check.kind === 'none') return seeOther(reply, base);
      const { status, error } = codeRefusal(language(request), check);
      return renderAccount(request, reply, who, status, { error });
    },
  );
}
