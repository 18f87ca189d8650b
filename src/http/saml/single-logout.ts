// GET|POST {issuer}/saml/slo (Profiles 2.0 §4.4). A signed LogoutRequest from an SP ends the browser's session here
// (its OIDC clients told by back-channel logout, as the end-session endpoint does); then every other SAML SP of the
// session is sent a signed LogoutRequest in turn through the browser (§4.4.3.3: a redirect, or the auto-submitting
// form of HTTP-POST for an SP that takes only that), its LogoutResponse coming back here over either binding, and at
// the end the SP that asked gets a signed LogoutResponse (PartialLogout when some SP was not logged out, §4.4.3.4).
// GET {issuer}/saml/slo/next goes on with a chain the provider's own sign-out began (IdP-initiated).
// A refused request gets an error page and nothing ends.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { resolveSession } from '../../domain/accounts/sessions.js';
import type { ProviderContext } from '../../domain/context.js';
import { endSession } from '../../domain/logout/logout.js';
import { single, type RawParams } from '../../domain/params.js';
import type { SamlCredentials } from '../../domain/saml/credentials.js';
import {
  beginLogoutChain,
  nextLogoutStep,
  openLogoutChain,
  readLogoutResponse,
  registeredServiceProvider,
  sealLogoutChain,
  type LogoutChain,
  type LogoutResponseInput,
} from '../../domain/saml/idp/front-channel-logout.js';
import type { FrontChannelMessage } from '../../domain/saml/idp/message-signatures.js';
import { endSessionsNamedBy, logoutResponse, readLogoutRequest, type SloInput } from '../../domain/saml/idp/single-logout.js';
import { SamlError } from '../../domain/saml/saml-error.js';
import { samlLogoutCookie, sessionCookie } from '../cookies.js';
import { pageLanguage } from '../page-language.js';
import { seeOther } from '../redirect.js';
import { FORM_POST_HEADERS, formPostPage } from '../views/form-post.js';
import { PAGE_HEADERS } from '../views/layout.js';
import { errorPage, signedOutPage } from '../views/pages.js';
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
  const chainCookie = samlLogoutCookie(ctx.config);
  const signingKey = () => credentials.signing();

  /** A refusal: the page says why in the reader's language, the English description goes to the log only. */
  function refuse(request: FastifyRequest, reply: FastifyReply, err: SamlError) {
    request.log.info({ event: 'saml_request_refused', code: err.code, reason: err.description }, 'SAML request refused');
    const t = pageLanguage(request, ctx.config);
    return reply
      .code(400)
      .headers(PAGE_HEADERS)
      .send(errorPage(t, samlRefusalText(t, err)));
  }

  /** A signed message to an SP through the browser: a redirect (Bindings §3.4), or a form that posts itself (§3.5). */
  function send(request: FastifyRequest, reply: FastifyReply, message: FrontChannelMessage) {
    if (message.kind === 'redirect') return seeOther(reply, message.url);
    return reply
      .headers(FORM_POST_HEADERS)
      .header('cache-control', 'no-store')
      .send(formPostPage(pageLanguage(request, ctx.config), { action: message.url, params: message.params }));
  }

  /** The LogoutResponse to the SP that asked (or, IdP-initiated, the place the sign-out said). */
  async function finish(request: FastifyRequest, reply: FastifyReply, chain: Pick<LogoutChain, 'finish'>, partial: boolean) {
    const t = pageLanguage(request, ctx.config);
    const done = chain.finish;
    if (done.kind === 'url') {
      if (done.url !== null) return seeOther(reply, done.url);
      return reply.code(200).headers(PAGE_HEADERS).send(signedOutPage(t, true));
    }
    const sp = await registeredServiceProvider(ctx, done.entityId);
    const answer = sp
      ? logoutResponse({
          issuer: ctx.config.issuer,
          request: { id: done.requestId, sp, sessionIndexes: [], nameId: undefined, relayState: done.relayState },
          now: ctx.clock(),
          key: await signingKey(),
          partial,
        })
      : ({ kind: 'none' } as const);
    if (answer.kind !== 'none') return send(request, reply, answer);
    return reply.headers(PAGE_HEADERS).send(signedOutPage(t, true));
  }

  /** §4.4.3.3: the next SP of the session gets its LogoutRequest, or, none left, the logout finishes. */
  async function goOn(request: FastifyRequest, reply: FastifyReply, chain: LogoutChain) {
    const step = await nextLogoutStep(ctx, signingKey, chain);
    if (step.kind === 'request') {
      request.log.info({ event: 'saml_logout_request_sent', sp: step.entityId, binding: step.message.kind }, 'SAML LogoutRequest sent');
      reply.setCookie(chainCookie.name, sealLogoutChain(ctx, step.chain), chainCookie.options);
      return send(request, reply, step.message);
    }
    reply.clearCookie(chainCookie.name, chainCookie.options);
    request.log.info({ event: 'saml_logout_done', partial: step.partial }, 'SAML single logout done');
    return finish(request, reply, step, step.partial);
  }

  async function handleRequest(request: FastifyRequest, reply: FastifyReply, input: SloInput) {
    let message;
    try {
      message = await readLogoutRequest(ctx.db, input, sloUrl, ctx.clock());
    } catch (err) {
      if (err instanceof SamlError) return refuse(request, reply, err);
      throw err;
    }
    const cookie = sessionCookie(ctx.config);
    const value = request.cookies[cookie.name];
    const session = await resolveSession(ctx, value);
    const finishing = { kind: 'saml', entityId: message.sp.entityId, requestId: message.id, relayState: message.relayState } as const;
    // Core §3.7.1: the SessionIndex names the session to end; without one, every session of the principal here.
    const named = session !== undefined && (message.sessionIndexes.length === 0 || message.sessionIndexes.includes(session.sid));
    let ended;
    if (named && value) {
      ended = await endSession(ctx, value);
      reply.clearCookie(cookie.name, cookie.options);
      if (ended && ended.queued > 0) opts.onLogoutsQueued();
    } else {
      // Profiles §4.4.3.2: the request itself names the principal and the session (a POST from the SP's site
      // brings no SameSite=Lax session cookie).
      ended = await endSessionsNamedBy(ctx, message, opts.onLogoutsQueued);
      if (!ended) return finish(request, reply, { finish: finishing }, false);
    }
    request.log.info({ event: 'saml_logout', sp: message.sp.entityId }, 'SAML single logout');
    const chain = ended && (await beginLogoutChain(ctx, ended.sid, message.sp.entityId, finishing));
    if (!chain) return finish(request, reply, { finish: finishing }, false);
    return goOn(request, reply, chain);
  }

  async function handleResponse(request: FastifyRequest, reply: FastifyReply, input: LogoutResponseInput) {
    let chain: LogoutChain;
    try {
      chain = openLogoutChain(ctx, request.cookies[chainCookie.name]);
    } catch (err) {
      if (err instanceof SamlError) return refuse(request, reply, err);
      throw err;
    }
    let read;
    try {
      read = await readLogoutResponse(ctx, input, chain, sloUrl);
    } catch (err) {
      if (err instanceof SamlError) return refuse(request, reply, err);
      throw err;
    }
    const sp = chain.pending?.entityId;
    if (read.confirmed) request.log.info({ event: 'saml_logout_confirmed', sp }, 'SAML LogoutResponse');
    else request.log.info({ event: 'saml_logout_unconfirmed', sp, code: read.problem }, 'SAML LogoutResponse not a success');
    return goOn(request, reply, read.chain);
  }

  app.get('/slo', { config: { html: true } }, async (request, reply) => {
    const rawQuery = request.raw.url?.split('?')[1] ?? '';
    if (/(^|&)SAMLResponse=/.test(rawQuery)) return handleResponse(request, reply, { binding: 'redirect', rawQuery });
    return handleRequest(request, reply, { binding: 'redirect', rawQuery });
  });

  app.post<{ Body: RawParams }>('/slo', { config: { html: true } }, async (request, reply) => {
    const response = single(request.body, 'SAMLResponse');
    if (response) return handleResponse(request, reply, { binding: 'post', SAMLResponse: response });
    const message = single(request.body, 'SAMLRequest');
    if (!message) return refuse(request, reply, new SamlError('bad_message', 'there is no SAMLRequest'));
    const relayState = single(request.body, 'RelayState');
    return handleRequest(request, reply, { binding: 'post', SAMLRequest: message, ...(relayState ? { RelayState: relayState } : {}) });
  });

  // The provider's own sign-out (end-session endpoint, account page) ended the session and began the chain.
  app.get('/slo/next', { config: { html: true } }, async (request, reply) => {
    let chain: LogoutChain;
    try {
      chain = openLogoutChain(ctx, request.cookies[chainCookie.name]);
    } catch (err) {
      if (err instanceof SamlError) return refuse(request, reply, err);
      throw err;
    }
    if (chain.pending !== null) return refuse(request, reply, new SamlError('bad_message', 'the logout waits for an answer'));
    return goOn(request, reply, chain);
  });
}
