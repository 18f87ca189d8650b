// The page that asks for the second factor of a challenged sign-in (the authenticator app's code, or the one-time
// code we sent), and finishes the sign-in with it.
// The challenge id travels only in an HttpOnly, SameSite=Lax cookie, never in a URL; the form echoes it as its CSRF
// token, as the sign-in and consent forms echo their binding cookie, so a post from another site is refused even
// where a browser sends the cookie along.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import { single, type RawParams } from '../../domain/params.js';
import { answerSecondFactor, pendingSecondFactor } from '../../domain/accounts/second-factor.js';
import { safeEqual } from '../../domain/secrets.js';
import { challengeCookie, sessionCookie } from '../cookies.js';
import { setDeviceCookie } from '../device-signals.js';
import { seeOther } from '../redirect.js';
import { PAGE_HEADERS } from '../views/layout.js';
import { errorPage, secondFactorPage } from '../views/pages.js';
import { waitTime } from '../views/wait-time.js';

const START_AGAIN = 'This sign-in has expired. Go back to the application and sign in again.';
const FOREIGN_FORM = 'The form has expired or did not come from this site. Go back to the application and sign in again.';
const tooManyCodes = (seconds: number) => `Too many wrong codes. Wait ${waitTime(seconds)}, then try again with a new code.`;

const formSchema = {
  type: 'object',
  properties: { code: { type: 'string', maxLength: 32 }, csrf: { type: 'string', maxLength: 64 } },
} as const;

export default async function secondFactorRoutes(app: FastifyInstance, opts: { ctx: ProviderContext }) {
  const { ctx } = opts;
  const action = `${ctx.config.issuer}/sign-in/verify`;
  const page = (reply: FastifyReply, status: number, body: string) => reply.code(status).headers(PAGE_HEADERS).send(body);
  const challengeOf = (request: FastifyRequest) => {
    const value = request.cookies[challengeCookie(ctx.config).name];
    return value && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
  };
  const dead = (reply: FastifyReply) => {
    const cookie = challengeCookie(ctx.config);
    reply.clearCookie(cookie.name, cookie.options);
    return page(reply, 400, errorPage(START_AGAIN));
  };

  app.get('/sign-in/verify', { config: { html: true } }, async (request, reply) => {
    const challengeId = challengeOf(request);
    const method = challengeId ? await pendingSecondFactor(ctx, challengeId) : undefined;
    if (!challengeId || !method) return dead(reply);
    return page(reply, 200, secondFactorPage({ action, method, csrfToken: challengeId }));
  });

  app.post<{ Body: RawParams }>('/sign-in/verify', { schema: { body: formSchema }, config: { html: true } }, async (request, reply) => {
    const challengeId = challengeOf(request);
    if (!challengeId) return dead(reply);
    // RFC 6749 10.12 (CSRF): refused before the code is looked at, so a forged post costs the person no attempt.
    const csrf = single(request.body, 'csrf');
    if (!csrf || !safeEqual(csrf, challengeId)) return page(reply, 403, errorPage(FOREIGN_FORM));
    const presented = request.cookies[sessionCookie(ctx.config).name];
    const answer = await answerSecondFactor(ctx, challengeId, single(request.body, 'code') ?? '', presented);
    if (answer.kind === 'dead') return dead(reply);
    if (answer.kind === 'wrong-code') {
      const error = answer.attemptsLeft > 0 ? 'That code is not right. Check it and try again.' : START_AGAIN;
      return page(reply, 401, secondFactorPage({ action, csrfToken: challengeId, error, method: answer.method }));
    }
    if (answer.kind === 'locked') {
      // RFC 6585 4: 429 Too Many Requests, with Retry-After; the page says the same in words.
      const error = answer.attemptsLeft > 0 ? tooManyCodes(answer.retryAfterSeconds) : START_AGAIN;
      reply.header('retry-after', String(answer.retryAfterSeconds));
      return page(reply, 429, secondFactorPage({ action, csrfToken: challengeId, error, method: 'totp' }));
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
