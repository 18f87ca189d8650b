// RP-Initiated Logout 1.0: the end_session_endpoint (GET and POST, section 2) and the answer to its confirmation page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import {
  confirmationToken,
  endSession,
  isConfirmationToken,
  needsConfirmation,
  postLogoutLocation,
  validateLogoutRequest,
  type LogoutRequest,
} from '../../domain/logout/logout.js';
import { single, type RawParams } from '../../domain/params.js';
import { resolveSession } from '../../domain/accounts/sessions.js';
import { InvalidRequest } from '../../errors/oauth-error.js';
import { beginLogoutChain, sealLogoutChain } from '../../domain/saml/idp/front-channel-logout.js';
import { samlLogoutCookie, sessionCookie } from '../cookies.js';
import { parseForm } from '../form-parser.js';
import { seeOther } from '../redirect.js';
import { PAGE_HEADERS } from '../views/layout.js';
import { logoutConfirmPage, signedOutPage } from '../views/pages.js';
import { pageLanguage, type PageLanguage } from '../page-language.js';

export interface EndSessionOptions {
  ctx: ProviderContext;
  /** Called when a session ended with back-channel logouts queued: deliver them now rather than at the next poll. */
  onLogoutsQueued: () => void;
}

const confirmSchema = {
  type: 'object',
  properties: {
    csrf: { type: 'string' },
    decision: { type: 'string', enum: ['logout', 'stay'] },
    ui_locales: { type: 'string', maxLength: 256 },
  },
} as const;

export default async function endSessionRoutes(app: FastifyInstance, opts: EndSessionOptions) {
  const { ctx } = opts;
  const cookie = sessionCookie(ctx.config);

  /**
   * Ends the browser's session, forgets its cookie, and wakes the back-channel deliveries. When the session signed in
   * to SAML SPs, returns the address that logs them out in turn (SAML Profiles 2.0 §4.4, IdP-initiated) before the
   * browser goes where `logout` says.
   */
  async function signOut(reply: FastifyReply, cookieValue: string, logout: LogoutRequest): Promise<string | undefined> {
    const ended = await endSession(ctx, cookieValue);
    reply.clearCookie(cookie.name, cookie.options);
    if (ended && ended.queued > 0) opts.onLogoutsQueued();
    const chain = ended && (await beginLogoutChain(ctx, ended.sid, undefined, { kind: 'url', url: postLogoutLocation(logout) }));
    if (!chain) return undefined;
    const chainCookie = samlLogoutCookie(ctx.config);
    reply.setCookie(chainCookie.name, sealLogoutChain(ctx, chain), chainCookie.options);
    return `${ctx.config.issuer}/saml/slo/next`;
  }

  /** To the SAML SPs' logout first, then the verified post_logout_redirect_uri (with state), or the provider's own page. */
  function finish(reply: FastifyReply, t: PageLanguage, logout: LogoutRequest, signedOut: boolean, samlLogout?: string) {
    if (samlLogout !== undefined) return seeOther(reply, samlLogout);
    const location = postLogoutLocation(logout);
    if (location !== null) return seeOther(reply, location);
    return reply.code(200).headers(PAGE_HEADERS).send(signedOutPage(t, signedOut));
  }

  /** RP-Initiated Logout 1.0 section 2: ui_locales, "End-User's preferred languages and scripts for the user interface". */
  const language = (request: FastifyRequest, params: RawParams) =>
    pageLanguage(request, ctx.config, typeof params.ui_locales === 'string' ? params.ui_locales : undefined);

  async function handle(request: FastifyRequest, reply: FastifyReply, params: RawParams) {
    const logout = await validateLogoutRequest(ctx, params);
    const t = language(request, params);
    const cookieValue = request.cookies[cookie.name];
    const session = await resolveSession(ctx, cookieValue);
    if (cookieValue !== undefined && needsConfirmation(logout, session, ctx.subjects)) {
      const hidden: Record<string, string> = {};
      if (logout.client) hidden.client_id = logout.client.clientId;
      if (logout.postLogoutRedirectUri !== null) hidden.post_logout_redirect_uri = logout.postLogoutRedirectUri;
      if (logout.state !== null) hidden.state = logout.state;
      // The page after the answer speaks the same language.
      if (t.preferred && params.ui_locales !== undefined) hidden.ui_locales = t.preferred;
      return reply
        .code(200)
        .headers(PAGE_HEADERS)
        .send(
          logoutConfirmPage(t, {
            action: `${ctx.config.issuer}/session/end/confirm`,
            csrfToken: confirmationToken(cookieValue),
            clientName: logout.client ? (logout.client.clientName ?? logout.client.clientId) : null,
            hidden,
          }),
        );
    }
    const samlLogout = session !== undefined && cookieValue !== undefined ? await signOut(reply, cookieValue, logout) : undefined;
    return finish(reply, t, logout, true, samlLogout);
  }

  app.get('/session/end', { config: { html: true } }, async (request, reply) => {
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    return handle(request, reply, parseForm(query));
  });

  // 2: "OPs MUST support the use of the HTTP GET and POST methods defined in RFC 7231 at the Logout Endpoint."
  app.post('/session/end', { config: { html: true } }, async (request, reply) => {
    return handle(request, reply, (request.body ?? {}) as RawParams);
  });

  app.post<{ Body: RawParams }>(
    '/session/end/confirm',
    { schema: { body: confirmSchema }, config: { html: true } },
    async (request, reply) => {
      const body = request.body ?? {};
      // The hidden fields are checked again as if they had come with the request: nothing is trusted for being echoed.
      const logout = await validateLogoutRequest(ctx, {
        client_id: body.client_id,
        post_logout_redirect_uri: body.post_logout_redirect_uri,
        state: body.state,
      });
      const t = language(request, body);
      const cookieValue = request.cookies[cookie.name];
      const session = await resolveSession(ctx, cookieValue);
      // Signed out meanwhile (another tab, expiry): nothing left to confirm.
      if (session === undefined || cookieValue === undefined) return finish(reply, t, logout, true);
      if (!isConfirmationToken(cookieValue, single(body, 'csrf'))) {
        throw new InvalidRequest('The form has expired or did not come from this site. Go back to the application and sign out again.');
      }
      if (single(body, 'decision') !== 'logout') return finish(reply, t, logout, false);
      return finish(reply, t, logout, true, await signOut(reply, cookieValue, logout));
    },
  );
}
