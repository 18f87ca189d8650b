// What the upstream routes share: the refusal pages (each with its status, never a 500), and the end of an upstream
// sign-in: the session cookies set and the browser sent back to the interaction it left, which goes on to consent
// or to the client as after any sign-in.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CompletedSignIn } from '../../domain/accounts/sign-in-completion.js';
import type { UpstreamRefusal } from '../../domain/connections/upstream-errors.js';
import type { ProviderContext } from '../../domain/context.js';
import type { Locale } from '../../i18n/catalog.js';
import { challengeCookie } from '../cookies.js';
import { pageLanguage } from '../page-language.js';
import { setSignInCookies } from './passkey-form.js';
import { seeOther } from '../redirect.js';
import { PAGE_HEADERS, type PageText } from '../views/layout.js';
import { errorPage } from '../views/pages.js';

export function refusalPage(
  request: FastifyRequest,
  reply: FastifyReply,
  t: PageText,
  err: UpstreamRefusal,
  connectionId: string,
): FastifyReply {
  request.log.warn({ connection: connectionId, refusal: err.kind, detail: err.detail }, 'upstream sign-in refused');
  return reply
    .code(err.status)
    .headers(PAGE_HEADERS)
    .send(errorPage(t, t(err.key)));
}

export function languageOf(ctx: ProviderContext, request: FastifyRequest, locale: Locale | undefined): PageText {
  return pageLanguage(request, ctx.config, locale);
}

export function backToInteraction(
  ctx: ProviderContext,
  reply: FastifyReply,
  completed: CompletedSignIn,
  interactionId: string,
): FastifyReply {
  setSignInCookies(ctx, reply, completed);
  return seeOther(reply, `${ctx.config.issuer}/interaction/${interactionId}`);
}

/** A CHALLENGE: the challenge cookie set and the browser sent to the code page, which returns it to the interaction. */
export function toSecondFactor(ctx: ProviderContext, reply: FastifyReply, challengeId: string): FastifyReply {
  const cookie = challengeCookie(ctx.config);
  reply.setCookie(cookie.name, challengeId, cookie.options);
  return seeOther(reply, `${ctx.config.issuer}/sign-in/verify`);
}
