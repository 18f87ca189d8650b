// GET|POST {issuer}/saml/slo (Profiles 2.0 §4.4, SP-initiated): a signed LogoutRequest ends the browser's session
// here (its OIDC clients told by back-channel logout, as the end-session endpoint does) and the SP gets a signed
// LogoutResponse at the SingleLogoutService of its metadata. A refused request gets an error page and nothing ends.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { resolveSession } from '../../domain/accounts/sessions.js';
import type { ProviderContext } from '../../domain/context.js';
import { endSession } from '../../domain/logout/logout.js';
import { single, type RawParams } from '../../domain/params.js';
import type { SamlCredentials } from '../../domain/saml/credentials.js';
import { logoutResponse, readLogoutRequest, type SloInput } from '../../domain/saml/idp/single-logout.js';
import { SamlError } from '../../domain/saml/saml-error.js';
import { sessionCookie } from '../cookies.js';
import { pageLanguage } from '../page-language.js';
import { seeOther } from '../redirect.js';
import { FORM_POST_HEADERS, formPostPage } from '../views/form-post.js';
import { PAGE_HEADERS } from '../views/layout.js';
import { errorPage } from '../views/pages.js';
import { samlRefusalText } from './refusal-text.js';

export interface SloRoutesOptions {
  ctx: ProviderContext;
  credentials: SamlCredentials;
  /** Sessions ended here queued back-channel logouts: deliver them now. */
  onLogoutsQueued: () => void;
}

export default async function samlSloRoutes(app: FastifyInstance, opts: SloRoutesOptions) {
  const { ctx, credentials } = opts;
  const sloUrl = `${ctx.config.issuer}/saml/slo`;

  async function handle(request: FastifyRequest, reply: FastifyReply, input: SloInput) {
    const t = pageLanguage(request, ctx.config);
    let message;
    try {
      message = await readLogoutRequest(ctx.db, input, sloUrl, ctx.clock());
    } catch (err) {
      if (!(err instanceof SamlError)) throw err;
      request.log.info({ event: 'saml_request_refused', code: err.code, reason: err.description }, 'SAML request refused');
      return reply
        .code(400)
        .headers(PAGE_HEADERS)
        .send(errorPage(t, samlRefusalText(t, err)));
    }
    const cookie = sessionCookie(ctx.config);
    const value = request.cookies[cookie.name];
    const session = await resolveSession(ctx, value);
    // Core §3.7.1: the SessionIndex names the session to end; without one, every session of the principal here.
    const named = session !== undefined && (message.sessionIndexes.length === 0 || message.sessionIndexes.includes(session.sid));
    if (named && value) {
      const ended = await endSession(ctx, value);
      reply.clearCookie(cookie.name, cookie.options);
      if (ended && ended.queued > 0) opts.onLogoutsQueued();
      request.log.info({ event: 'saml_logout', sp: message.sp.entityId }, 'SAML single logout');
    }
    const answer = logoutResponse({
      issuer: ctx.config.issuer,
      request: message,
      now: ctx.clock(),
      key: await credentials.signing(),
      partial: false,
    });
    if (answer.kind === 'redirect') return seeOther(reply, answer.url);
    if (answer.kind === 'post')
      return reply
        .headers(FORM_POST_HEADERS)
        .header('cache-control', 'no-store')
        .send(formPostPage(t, { action: answer.url, params: answer.params }));
    return reply.headers(PAGE_HEADERS).send(errorPage(t, t('logout.doneHeading')));
  }

  app.get('/slo', { config: { html: true } }, async (request, reply) =>
    handle(request, reply, { binding: 'redirect', rawQuery: request.raw.url?.split('?')[1] ?? '' }),
  );

  app.post<{ Body: RawParams }>('/slo', { config: { html: true } }, async (request, reply) => {
    const message = single(request.body, 'SAMLRequest');
    if (!message) {
      const t = pageLanguage(request, ctx.config);
      return reply
        .code(400)
        .headers(PAGE_HEADERS)
        .send(errorPage(t, samlRefusalText(t, { code: 'bad_message' })));
    }
    const relayState = single(request.body, 'RelayState');
    return handle(request, reply, { binding: 'post', SAMLRequest: message, ...(relayState ? { RelayState: relayState } : {}) });
  });
}
