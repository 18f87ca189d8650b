// GET/POST {issuer}/invitations/{token}: the link of an organization's invitation (src/domain/organizations/
// invitations.ts). Every request is counted per network before the token is looked up. The GET shows what the link
// invites to and accepts nothing (mail scanners open links); the POST, a form of the signed-in person's with the
// account pages' CSRF token, accepts. Without a session the person signs in (or signs up) and the sign-in returns
// here (a cookie holds the link until then). The path carries the token: its log line names the route's pattern.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accountFormToken } from '../../domain/accounts/account-forms.js';
import type { ProviderContext } from '../../domain/context.js';
import {
  acceptInvitation,
  addressMatches,
  claimInvitationCounter,
  openInvitation,
  type OpenInvitation,
} from '../../domain/organizations/invitations.js';
import type { RawParams } from '../../domain/params.js';
import { invitationPendingCookie } from '../cookies.js';
import { pageLanguage } from '../page-language.js';
import { PAGE_HEADERS, type PageText } from '../views/layout.js';
import { accountSession } from './account/account-session.js';
import { accountErrorPage } from './views/account-pages.js';
import {
  invitationAcceptedPage,
  invitationAcceptPage,
  invitationSignInPage,
  invitationUnusablePage,
  invitationWrongAddressPage,
} from './views/invitation-pages.js';
import { waitTime } from './views/wait-time.js';

export interface InvitationRoutesOptions {
  ctx: ProviderContext;
}

const paramsSchema = {
  type: 'object',
  properties: { token: { type: 'string', maxLength: 64 } },
  required: ['token'],
} as const;
const formSchema = { type: 'object', properties: { csrf: { type: 'string', maxLength: 128 } } } as const;

type Params = { token: string };

export default async function invitationRoutes(app: FastifyInstance, opts: InvitationRoutesOptions) {
  const { ctx } = opts;
  const { config } = ctx;
  const account = `${config.issuer}/account`;
  const { signedIn, formPost } = accountSession(ctx);
  const page = (reply: FastifyReply, status: number, body: string) => reply.code(status).headers(PAGE_HEADERS).send(body);
  const language = (request: FastifyRequest) => pageLanguage(request, config);
  const linkOf = (token: string) => `${config.issuer}/invitations/${token}`;
  const shown = (i: OpenInvitation) => ({ organization: i.organization.displayName, inviter: i.inviter, roles: i.roles });

  /** The same page, and status, for a token that is unknown, expired, used or revoked. */
  const unusable = (reply: FastifyReply, t: PageText) => {
    const spec = invitationPendingCookie(config);
    reply.clearCookie(spec.name, spec.options);
    return page(reply, 404, invitationUnusablePage(t));
  };

  /** Counted before any lookup; false (answered 429) when the network is locked. */
  async function counted(request: FastifyRequest, reply: FastifyReply, t: PageText): Promise<boolean> {
    const claim = await claimInvitationCounter(ctx, request.ip);
    if (claim.kind === 'claimed') return true;
    reply.header('retry-after', String(claim.retryAfterSeconds));
    page(
      reply,
      429,
      accountErrorPage(t, account, t('common.somethingWrong'), t('common.waitThenRetry', { wait: waitTime(t, claim.retryAfterSeconds) })),
    );
    return false;
  }

  app.get<{ Params: Params }>(
    '/invitations/:token',
    { schema: { params: paramsSchema }, config: { html: true, secretPath: true } },
    async (request, reply) => {
      const t = language(request);
      if (!(await counted(request, reply, t))) return reply;
      const { token } = request.params;
      const invitation = await openInvitation(ctx, token);
      if (!invitation) return unusable(reply, t);
      const who = await signedIn(request);
      const pending = invitationPendingCookie(config);
      if (!who) {
        // The account sign-in sends the browser back here (src/http/pages/account/account-sign-in.ts).
        reply.setCookie(pending.name, token, pending.options);
        return page(
          reply,
          200,
          invitationSignInPage(t, {
            ...shown(invitation),
            signInUrl: `${account}/sign-in`,
            signUpUrl: config.signup.mode === 'open' ? `${account}/signup` : undefined,
          }),
        );
      }
      reply.clearCookie(pending.name, pending.options);
      if (!addressMatches(who.user, invitation))
        return page(reply, 403, invitationWrongAddressPage(t, { signOutUrl: `${config.issuer}/session/end` }));
      return page(
        reply,
        200,
        invitationAcceptPage(t, { ...shown(invitation), action: linkOf(token), csrfToken: accountFormToken(who.cookie) }),
      );
    },
  );

  app.post<{ Params: Params; Body: RawParams }>(
    '/invitations/:token',
    { schema: { params: paramsSchema, body: formSchema }, config: { html: true, secretPath: true } },
    async (request, reply) => {
      const t = language(request);
      if (!(await counted(request, reply, t))) return reply;
      const who = await formPost(request, reply);
      if (!who) return reply;
      const result = await acceptInvitation({ ...ctx, log: request.log }, request.params.token, who.user);
      switch (result.kind) {
        case 'unusable':
          return unusable(reply, t);
        case 'wrong-address':
          return page(reply, 403, invitationWrongAddressPage(t, { signOutUrl: `${config.issuer}/session/end` }));
        case 'accepted':
          return page(reply, 200, invitationAcceptedPage(t, { organization: result.organization.displayName, accountUrl: account }));
      }
    },
  );
}
