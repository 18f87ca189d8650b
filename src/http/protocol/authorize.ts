// The authorization endpoint (RFC 6749 3.1, OIDC Core 3.1.2), GET and POST.
import { withResources } from '../../domain/authorization/resource-request.js';
import { withOrganization } from '../../domain/authorization/organization-request.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  verifyTarget,
  validateRequest,
  UntrustedRedirectError,
  type VerifiedTarget,
} from '../../domain/authorization/authorization-request.js';
import { errorResponse } from '../../domain/authorization/authorization-response.js';
import { authorize } from '../../domain/authorization/authorize.js';
import { assertPushedWhenRequired, takePushedRequest } from '../../domain/authorization/pushed-request.js';
import type { RequestParams } from '../../domain/authorization/request-object.js';
import { carriesRequestReference, resolveRequestParameters, type ResolvedParams } from '../../domain/authorization/request-parameters.js';
import type { ProviderContext } from '../../domain/context.js';
import { withCurrentClient, type ClientAttempt } from '../../domain/clients/current-client.js';
import type { RawParams } from '../../domain/params.js';
import { OAuthError } from '../../errors/oauth-error.js';
import { toOAuthError } from '../../errors/to-oauth-error.js';
import { sendAuthorizationResponse } from '../authorization-response.js';
import { interactionCookie, interactionCookiesToForget, sessionCookie } from '../cookies.js';
import { parseForm } from '../form-parser.js';
import { seeOther } from '../redirect.js';
import { PAGE_HEADERS } from '../views/layout.js';
import { errorPage } from '../views/pages.js';
import { pageLanguage } from '../page-language.js';

function redirect(reply: FastifyReply, location: string): FastifyReply {
  return seeOther(reply, location);
}

export default async function authorizeRoutes(app: FastifyInstance, opts: { ctx: ProviderContext }) {
  const { ctx } = opts;

  /**
   * A decision made with a remembered client stands only when the statement that committed it confirmed the
   * client's revision (a code from the session); anything else (an error page, an error redirect, a sign-in page)
   * is first confirmed, and redone with the client as registered now when it changed meanwhile (withCurrentClient).
   */
  function handle(request: FastifyRequest, reply: FastifyReply, params: RawParams): Promise<FastifyReply> {
    // A pushed request is taken once per HTTP request, also when the request is redone with the client as it is now.
    let taken: Promise<RequestParams> | undefined;
    const pushed = (clientId: string, requestUri: string) => (taken ??= takePushedRequest(ctx, clientId, requestUri));
    return withCurrentClient(ctx, (attempt) => decide(request, reply, params, attempt, pushed));
  }

  async function decide(
    request: FastifyRequest,
    reply: FastifyReply,
    query: RawParams,
    attempt: ClientAttempt,
    pushed: (clientId: string, requestUri: string) => Promise<RequestParams>,
  ): Promise<FastifyReply> {
    const load = async (clientId: string) => (await attempt.lookup(clientId))?.client;

    // RFC 9101 6.3, RFC 9126 4: a request object or a pushed request is the request. One that cannot be resolved is
    // refused in phase two, to the redirect URI that the query's own parameters verify (else on the page).
    let resolved: ResolvedParams = { params: query, pushed: false };
    let refusal: OAuthError | undefined;
    if (carriesRequestReference(query)) {
      try {
        resolved = await resolveRequestParameters(ctx, query, { client: load, pushed });
      } catch (err) {
        if (!(err instanceof OAuthError)) throw err;
        refusal = err;
      }
    }
    const params = resolved.params;
    // The pages this request answers with speak its ui_locales (a repeated one is refused in phase two).
    const t = pageLanguage(request, ctx.config, typeof params.ui_locales === 'string' ? params.ui_locales : undefined);

    // Phase one: until the client and its redirect URI are verified, errors are shown, never redirected.
    let target: VerifiedTarget;
    try {
      target = await verifyTarget(load, params);
    } catch (err) {
      if (!(err instanceof UntrustedRedirectError)) throw err;
      await attempt.ensureCurrent();
      const shown =
        refusal && err.text.key !== 'authorize.unknownClient' ? t('authorize.invalid', { detail: refusal.description }) : t.text(err.text);
      return reply.code(err.status).headers(PAGE_HEADERS).send(errorPage(t, shown));
    }
    // Phase two: every other error goes back to the client (RFC 6749 4.1.2.1), in the response mode asked for.
    try {
      if (refusal) throw refusal;
      assertPushedWhenRequired(ctx.config, target.client, resolved.pushed);
      const validated = await withResources(ctx, target.client, validateRequest(target, params), params);
      const authRequest = await withOrganization(ctx, target.client, validated, params);
      const outcome = await authorize(ctx, authRequest, request.cookies[sessionCookie(ctx.config).name], target.client);
      if (outcome.clientConfirmed) attempt.confirm();
      else await attempt.ensureCurrent();
      if (outcome.kind === 'respond') return sendAuthorizationResponse(reply, t, outcome.response);
      for (const old of interactionCookiesToForget(ctx.config, request.cookies)) reply.clearCookie(old.name, old.options);
      const binding = interactionCookie(ctx.config, outcome.interactionId);
      reply.setCookie(binding.name, outcome.bindingSecret, binding.options);
      return redirect(reply, `${ctx.config.issuer}/interaction/${outcome.interactionId}`);
    } catch (err) {
      await attempt.ensureCurrent();
      const { oauth, unexpected } = toOAuthError(err);
      if (unexpected) request.log.error({ err }, 'authorization request failed');
      return sendAuthorizationResponse(reply, t, errorResponse(ctx, target, oauth));
    }
  }

  app.get('/authorize', { config: { html: true } }, async (request, reply) => {
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    let params: RawParams;
    try {
      params = parseForm(query, 'collect');
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err;
      const t = pageLanguage(request, ctx.config);
      return reply
        .code(400)
        .headers(PAGE_HEADERS)
        .send(errorPage(t, t('authorize.invalid', { detail: err.description })));
    }
    return handle(request, reply, params);
  });

  // The form body too keeps a repeated name for phase two to redirect, in place of the app's refusing parser.
  // The bodyLimit is the app's, as for every other form (src/app.ts).
  app.removeContentTypeParser('application/x-www-form-urlencoded');
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseForm(String(body), 'collect'));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  app.post('/authorize', { config: { html: true } }, async (request, reply) => {
    return handle(request, reply, (request.body ?? {}) as RawParams);
  });
}
