// The page that asks for the second factor of a challenged sign-in (the authenticator app's code, or the one-time
// code we sent), and finishes the sign-in with it.
// The challenge id travels only in an HttpOnly, SameSite=Lax cookie, never in a URL; the form echoes it as its CSRF
// token, as the sign-in and consent forms echo their binding cookie, so a post from another site is refused even
// where a browser sends the cookie along.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import { single, type RawParams } from '../../domain/params.js';
import {
  answerSecondFactor,
  answerSecondFactorWithPasskey,
  secondFactorOffer,
  secondFactorPasskeyOptions,
  type SecondFactorMethod,
} from '../../domain/accounts/second-factor.js';
import { MAX_PASSKEY_RESPONSE_LENGTH, passkeysOffered } from '../../domain/accounts/passkey-ceremony.js';
import {
  PASSKEY_REFUSED,
  postedCredential,
  sendPasskeyError,
  sendPasskeyOptions,
  setSignInCookies,
  UNREADABLE_PASSKEY,
} from './passkey-form.js';
import { safeEqual } from '../../domain/secrets.js';
import { challengeCookie, sessionCookie } from '../cookies.js';
import { setDeviceCookie } from './device-signals.js';
import { seeOther } from '../redirect.js';
import { PAGE_HEADERS, type PageText } from '../views/layout.js';
import { errorPage, PASSKEY_PAGE_HEADERS, secondFactorPage } from '../views/pages.js';
import { waitTime } from './views/wait-time.js';
import type { Locale } from '../../i18n/catalog.js';
import { pageLanguage } from '../page-language.js';

const START_AGAIN = 'secondFactor.startAgain';
const FOREIGN_FORM = 'secondFactor.foreignForm';
const tooManyCodes = (t: PageText, seconds: number) => t('secondFactor.tooManyCodes', { wait: waitTime(t, seconds) });

const formSchema = {
  type: 'object',
  properties: {
    code: { type: 'string', maxLength: 32 },
    csrf: { type: 'string', maxLength: 64 },
    credential: { type: 'string', maxLength: MAX_PASSKEY_RESPONSE_LENGTH },
  },
} as const;

export default async function secondFactorRoutes(app: FastifyInstance, opts: { ctx: ProviderContext }) {
  const { ctx } = opts;
  const action = `${ctx.config.issuer}/sign-in/verify`;
  const page = (reply: FastifyReply, status: number, body: string) => reply.code(status).headers(PAGE_HEADERS).send(body);
  const challengeOf = (request: FastifyRequest) => {
    const value = request.cookies[challengeCookie(ctx.config).name];
    return value && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
  };
  /** The language of the sign-in page the challenge came from, else the browser's. */
  const language = (request: FastifyRequest, locale?: Locale) => pageLanguage(request, ctx.config, locale);
  const dead = (reply: FastifyReply, t: PageText) => {
    const cookie = challengeCookie(ctx.config);
    reply.clearCookie(cookie.name, cookie.options);
    return page(reply, 400, errorPage(t, t(START_AGAIN)));
  };

  const passkey = { optionsUrl: `${action}/passkey/options`, action: `${action}/passkey` };
  /** The code page, with the passkey ahead of the code when the user has one (then the page runs the passkey script). */
  const codePage = (
    reply: FastifyReply,
    t: PageText,
    status: number,
    input: { csrfToken: string; method: SecondFactorMethod; passkey: boolean; error?: string },
  ) =>
    reply
      .code(status)
      .headers(input.passkey ? PASSKEY_PAGE_HEADERS : PAGE_HEADERS)
      .send(
        secondFactorPage(t, {
          action,
          csrfToken: input.csrfToken,
          method: input.method,
          error: input.error,
          ...(input.passkey ? { passkey } : {}),
        }),
      );

  /** A wrong code leaves the passkey on offer while the challenge lives. */
  const offerOf = async (request: FastifyRequest, challengeId: string) => {
    const offer = await secondFactorOffer(ctx, challengeId);
    return { offer, t: language(request, offer?.locale) };
  };

  app.get('/sign-in/verify', { config: { html: true } }, async (request, reply) => {
    const challengeId = challengeOf(request);
    const { offer, t } = challengeId ? await offerOf(request, challengeId) : { offer: undefined, t: language(request) };
    if (!challengeId || !offer) return dead(reply, t);
    return codePage(reply, t, 200, { csrfToken: challengeId, method: offer.method, passkey: offer.passkey && passkeysOffered(ctx) });
  });

  app.post<{ Body: RawParams }>('/sign-in/verify/passkey/options', { schema: { body: formSchema } }, async (request, reply) => {
    const challengeId = challengeOf(request);
    const csrf = single(request.body, 'csrf');
    const t = language(request);
    if (!challengeId || !csrf || !safeEqual(csrf, challengeId)) return sendPasskeyError(reply, 403, 'invalid_request', t(FOREIGN_FORM));
    const options = await secondFactorPasskeyOptions(ctx, challengeId);
    if (!options) return sendPasskeyError(reply, 400, 'invalid_request', t(START_AGAIN));
    return sendPasskeyOptions(reply, options);
  });

  app.post<{ Body: RawParams }>(
    '/sign-in/verify/passkey',
    { schema: { body: formSchema }, config: { html: true } },
    async (request, reply) => {
      const challengeId = challengeOf(request);
      if (!challengeId) return dead(reply, language(request));
      const { t } = await offerOf(request, challengeId);
      const csrf = single(request.body, 'csrf');
      if (!csrf || !safeEqual(csrf, challengeId)) return page(reply, 403, errorPage(t, t(FOREIGN_FORM)));
      const again = async (status: number, error: string) => {
        const { offer } = await offerOf(request, challengeId);
        return offer
          ? codePage(reply, t, status, {
              csrfToken: challengeId,
              method: offer.method,
              passkey: offer.passkey && passkeysOffered(ctx),
              error,
            })
          : dead(reply, t);
      };
      const credential = postedCredential(request.body);
      if (credential === undefined) return again(400, t(UNREADABLE_PASSKEY));
      const presented = request.cookies[sessionCookie(ctx.config).name];
      const answer = await answerSecondFactorWithPasskey(ctx, challengeId, credential, request.ip, presented);
      if (answer.kind === 'dead') return dead(reply, t);
      if (answer.kind === 'malformed') return again(400, t(UNREADABLE_PASSKEY));
      if (answer.kind === 'throttled') {
        reply.header('retry-after', String(answer.retryAfterSeconds));
        return again(429, t.plural('common.tooManyAttempts', answer.retryAfterSeconds));
      }
      if (answer.kind === 'refused') return again(401, t(PASSKEY_REFUSED));
      setSignInCookies(ctx, reply, answer.completed);
      const challenge = challengeCookie(ctx.config);
      reply.clearCookie(challenge.name, challenge.options);
      return seeOther(reply, answer.returnTo);
    },
  );

  app.post<{ Body: RawParams }>('/sign-in/verify', { schema: { body: formSchema }, config: { html: true } }, async (request, reply) => {
    const challengeId = challengeOf(request);
    if (!challengeId) return dead(reply, language(request));
    // Read before the answer: a right code uses the challenge up, a dead one is worth a page in its language too.
    const { t } = await offerOf(request, challengeId);
    // RFC 6749 10.12 (CSRF): refused before the code is looked at, so a forged post costs the person no attempt.
    const csrf = single(request.body, 'csrf');
    if (!csrf || !safeEqual(csrf, challengeId)) return page(reply, 403, errorPage(t, t(FOREIGN_FORM)));
    const presented = request.cookies[sessionCookie(ctx.config).name];
    const answer = await answerSecondFactor(ctx, challengeId, single(request.body, 'code') ?? '', presented);
    if (answer.kind === 'dead') return dead(reply, t);
    /** A wrong code leaves the passkey on offer while the challenge lives. */
    const hasPasskeyOffer = async () => passkeysOffered(ctx) && ((await secondFactorOffer(ctx, challengeId))?.passkey ?? false);
    if (answer.kind === 'wrong-code') {
      const error = answer.attemptsLeft > 0 ? t('secondFactor.wrongCode') : t(START_AGAIN);
      return codePage(reply, t, 401, { csrfToken: challengeId, error, method: answer.method, passkey: await hasPasskeyOffer() });
    }
    if (answer.kind === 'locked') {
      // RFC 6585 4: 429 Too Many Requests, with Retry-After; the page says the same in words.
      const error = answer.attemptsLeft > 0 ? tooManyCodes(t, answer.retryAfterSeconds) : t(START_AGAIN);
      reply.header('retry-after', String(answer.retryAfterSeconds));
      return codePage(reply, t, 429, { csrfToken: challengeId, error, method: 'totp', passkey: await hasPasskeyOffer() });
    }
    const { completed } = answer;
    const session = sessionCookie(ctx.config);
    reply.setCookie(session.name, completed.cookie, session.options);
    if (completed.newDeviceCookie) setDeviceCookie(reply, ctx.config, completed.newDeviceCookie);
    const challenge = challengeCookie(ctx.config);
    reply.clearCookie(challenge.name, challenge.options);
    return seeOther(reply, answer.returnTo);
  });
}
