// What the sign-up pages share: their addresses, their language, the form's input, the invitation-only page, and the
// end of a verified sign-up (the browser signed in and sent on where it came from).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createSession } from '../../domain/accounts/sessions.js';
import type { SignupVerification } from '../../domain/accounts/signup.js';
import { rememberUserLocale } from '../../domain/accounts/users.js';
import { interactionLocale } from '../../domain/authorization/authorize.js';
import type { ProviderContext } from '../../domain/context.js';
import { sessionCookie, signupCookie } from '../cookies.js';
import { pageLanguage, type PageLanguage } from '../page-language.js';
import { seeOther } from '../redirect.js';
import { pendingInvitationUrl } from './invitation-return.js';
import { PAGE_HEADERS, type PageText } from '../views/layout.js';
import { signupEndPage, type SignupPageInput } from './views/signup-pages.js';

export interface SignupRoutesOptions {
  ctx: ProviderContext;
  onMessagesQueued?: () => void;
}

/** A sign-up that ended: verified (by code, link, or at once for an invitation), or not. */
export type SignupEnd = SignupVerification | { kind: 'created'; userId: string; signupId?: undefined; interactionId: string | null };

export function signupKit(ctx: ProviderContext) {
  const base = `${ctx.config.issuer}/account`;
  const page = (reply: FastifyReply, status: number, body: string) => reply.code(status).headers(PAGE_HEADERS).send(body);
  const signInUrl = (interactionId?: string | null) =>
    interactionId ? `${ctx.config.issuer}/interaction/${interactionId}` : `${base}/sign-in`;
  const formInput = (interactionId: string | undefined, invite?: { token: string; email: string }): SignupPageInput => ({
    action: `${base}/signup`,
    interactionId,
    invite,
    askUsername: ctx.config.signup.username === 'optional',
    minLength: ctx.config.passwordPolicy.minLength,
    signInUrl: signInUrl(interactionId),
  });
  /** Started from an authorization request's sign-in page: its language (ui_locales), else the browser's. */
  const language = async (request: FastifyRequest, interactionId?: string) =>
    pageLanguage(request, ctx.config, await interactionLocale(ctx, interactionId));

  /** The end page of a sign-up that cannot go on: a title, a sentence, and a link onwards. */
  const endPage = (reply: FastifyReply, t: PageText, status: number, what: 'inviteOnly' | 'unusable' | 'taken') => {
    const ends = {
      inviteOnly: {
        title: t('signup.inviteOnlyTitle'),
        message: t('signup.inviteOnly'),
        link: { url: `${base}/sign-in`, label: t('signIn.title') },
      },
      unusable: {
        title: t('signup.unusableTitle'),
        message: t('signup.unusable'),
        link: { url: `${base}/signup`, label: t('signup.again') },
      },
      taken: { title: t('signup.takenTitle'), message: t('signup.taken'), link: { url: `${base}/forgot`, label: t('signIn.forgot') } },
    };
    return page(reply, status, signupEndPage(t, { ...ends[what], alert: true }));
  };
  const invitationOnly = (reply: FastifyReply, t: PageText) => endPage(reply, t, 403, 'inviteOnly');

  /** The browser that signed up holds the authorization request (its signup cookie): it goes back there, its cookie spent. */
  function sameBrowser(request: FastifyRequest, reply: FastifyReply, signupId: string | undefined): boolean {
    const spec = signupCookie(ctx.config);
    const same = signupId !== undefined && request.cookies[spec.name] === signupId;
    if (same) reply.clearCookie(spec.name, spec.options);
    return same;
  }

  /** A verified sign-up: the browser is signed in, and goes on where it came from. */
  async function finish(request: FastifyRequest, reply: FastifyReply, t: PageLanguage, result: SignupEnd) {
    if (result.kind === 'unusable') return endPage(reply, t, 400, 'unusable');
    if (result.kind === 'taken') return endPage(reply, t, 409, 'taken');
    await rememberUserLocale(ctx, result.userId, t.preferred);
    const spec = sessionCookie(ctx.config);
    const created = await createSession(ctx, result.userId, ctx.clock());
    reply.setCookie(spec.name, created.cookie, spec.options);
    // A link opened elsewhere (a phone's mail app) lands on the account page instead.
    const back = sameBrowser(request, reply, result.signupId) && result.interactionId;
    if (back) return seeOther(reply, `${ctx.config.issuer}/interaction/${result.interactionId}`);
    // Signed up from an organization's invitation (src/http/pages/invitation.ts): back to it, to accept.
    return seeOther(reply, pendingInvitationUrl(ctx.config, request) ?? `${base}?done=signed-up`);
  }

  return { base, page, formInput, language, invitationOnly, finish };
}
