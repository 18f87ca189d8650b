// GET|POST {issuer}/saml/sso (Profiles 2.0 §4.1, Bindings §3.4 HTTP-Redirect and §3.5 HTTP-POST) and
// GET {issuer}/saml/init?sp=ENTITY_ID (IdP-initiated, for SPs that allow it). A refused request gets an error page
// and nothing is sent to any SP; an accepted one is answered by an auto-submitting form to an ACS of its metadata,
// after the person signs in at the provider's own sign-in page when the browser's session cannot serve it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { resolveSession } from '../../domain/accounts/sessions.js';
import type { ProviderContext } from '../../domain/context.js';
import type { SamlCredentials } from '../../domain/saml/credentials.js';
import { encodePostMessage } from '../../domain/saml/bindings.js';
import { readAuthnRequest } from '../../domain/saml/idp/authn-request.js';
import { openPendingSignIn, sealPendingSignIn } from '../../domain/saml/idp/pending-sign-in.js';
import { idpInitiatedRequest } from '../../domain/saml/idp/idp-initiated.js';
import { answerSso, ssoRequestOf, type SsoRequest } from '../../domain/saml/idp/single-sign-on.js';
import { SamlError } from '../../domain/saml/saml-error.js';
import { single, type RawParams } from '../../domain/params.js';
import { samlPendingCookie, sessionCookie } from '../cookies.js';
import { seeOther } from '../redirect.js';
import { pageLanguage } from '../page-language.js';
import { FORM_POST_HEADERS, formPostPage } from '../views/form-post.js';
import { PAGE_HEADERS } from '../views/layout.js';
import { errorPage } from '../views/pages.js';
import { samlRefusalText } from './refusal-text.js';

export interface SsoRoutesOptions {
  ctx: ProviderContext;
  credentials: SamlCredentials;
}

export default async function samlSsoRoutes(app: FastifyInstance, opts: SsoRoutesOptions) {
  const { ctx, credentials } = opts;
  const ssoUrl = `${ctx.config.issuer}/saml/sso`;

  /** A refusal: the page says why in the person's language (the description goes to the log), and no message leaves for the SP. */
  function refuse(request: FastifyRequest, reply: FastifyReply, err: SamlError) {
    request.log.info({ event: 'saml_request_refused', code: err.code, reason: err.description }, 'SAML request refused');
    const t = pageLanguage(request, ctx.config);
    return reply
      .code(400)
      .headers(PAGE_HEADERS)
      .send(errorPage(t, samlRefusalText(t, err)));
  }

  async function answer(request: FastifyRequest, reply: FastifyReply, sso: SsoRequest, resumed = false) {
    const session = await resolveSession(ctx, request.cookies[sessionCookie(ctx.config).name]);
    const answered = await answerSso(ctx, credentials, sso, session);
    const t = pageLanguage(request, ctx.config);
    if (answered.kind === 'sign-in') {
      // Back here from a sign-in that still does not serve it (a second refusal): say so rather than loop.
      if (resumed)
        return reply
          .code(403)
          .headers(PAGE_HEADERS)
          .send(errorPage(t, t('common.somethingWrong')));
      // The provider's own sign-in (the same form, risk engine and second factor as every sign-in) returns the
      // browser to /saml/resume, where the request waits in a sealed cookie.
      const pending = samlPendingCookie(ctx.config);
      reply.setCookie(pending.name, sealPendingSignIn(ctx, sso), pending.options);
      const again = session !== undefined;
      return seeOther(reply, `${ctx.config.issuer}/account/sign-in${again ? '?notice=reauth' : ''}`);
    }
    if (answered.userId !== null) {
      request.log.info({ event: 'saml_sign_in', sp: sso.sp.entityId, user: answered.userId }, 'SAML response sent');
    }
    const params: Record<string, string> = { SAMLResponse: encodePostMessage(answered.samlResponse) };
    if (answered.relayState !== undefined) params.RelayState = answered.relayState;
    return reply
      .headers(FORM_POST_HEADERS)
      .header('cache-control', 'no-store')
      .send(formPostPage(t, { action: answered.acsUrl, params }));
  }

  const handle =
    <R extends FastifyRequest>(read: (request: R) => Promise<SsoRequest>) =>
    async (request: R, reply: FastifyReply) => {
      let sso: SsoRequest;
      try {
        sso = await read(request);
      } catch (err) {
        if (err instanceof SamlError) return refuse(request, reply, err);
        throw err;
      }
      return answer(request, reply, sso);
    };

  app.get(
    '/sso',
    { config: { html: true } },
    handle(async (request) => {
      const query = request.raw.url?.split('?')[1] ?? '';
      return ssoRequestOf(await readAuthnRequest(ctx.db, { binding: 'redirect', rawQuery: query }, ssoUrl), ctx.clock());
    }),
  );

  app.post<{ Body: RawParams }>(
    '/sso',
    { config: { html: true } },
    handle<FastifyRequest<{ Body: RawParams }>>(async (request) => {
      const message = single(request.body, 'SAMLRequest');
      if (!message) throw new SamlError('bad_message', 'there is no SAMLRequest');
      const relayState = single(request.body, 'RelayState');
      return ssoRequestOf(
        await readAuthnRequest(
          ctx.db,
          { binding: 'post', SAMLRequest: message, ...(relayState ? { RelayState: relayState } : {}) },
          ssoUrl,
        ),
        ctx.clock(),
      );
    }),
  );

  // The browser back from signing in: the waiting request, answered for the session it now has.
  app.get('/resume', { config: { html: true } }, async (request, reply) => {
    const pending = samlPendingCookie(ctx.config);
    let sso: SsoRequest;
    try {
      sso = await openPendingSignIn(ctx, request.cookies[pending.name]);
    } catch (err) {
      if (err instanceof SamlError) return refuse(request, reply, err);
      throw err;
    }
    reply.clearCookie(pending.name, pending.options);
    return answer(request, reply, sso, true);
  });

  app.get<{ Querystring: RawParams }>(
    '/init',
    { config: { html: true } },
    handle<FastifyRequest<{ Querystring: RawParams }>>(async (request) => {
      const entityId = single(request.query, 'sp');
      if (!entityId) throw new SamlError('bad_message', 'there is no sp parameter');
      return idpInitiatedRequest(ctx.db, entityId, single(request.query, 'RelayState'));
    }),
  );
}
