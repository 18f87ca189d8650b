// The authorization endpoint (RFC 6749 3.1, OIDC Core 3.1.2), GET and POST.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { verifyTarget, validateRequest, UntrustedRedirectError, type VerifiedTarget } from '../../domain/authorization-request.js';
import { errorResponse } from '../../domain/authorization-response.js';
import { authorize } from '../../domain/authorize.js';
import type { ProviderContext } from '../../domain/context.js';
import type { RawParams } from '../../domain/params.js';
import { OAuthError } from '../../errors/oauth-error.js';
import { toOAuthError } from '../../errors/to-oauth-error.js';
import { sendAuthorizationResponse } from '../authorization-response.js';
import { interactionCookie, sessionCookie } from '../cookies.js';
import { parseForm } from '../form-parser.js';
import { PAGE_HEADERS } from '../views/layout.js';
import { errorPage } from '../views/pages.js';

function redirect(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('location', location).header('cache-control', 'no-store').send();
}

export default async function authorizeRoutes(app: FastifyInstance, opts: { ctx: ProviderContext }) {
  const { ctx } = opts;

  async function handle(request: FastifyRequest, reply: FastifyReply, params: RawParams) {
    // Phase one: until the client and its redirect URI are verified, errors are shown, never redirected.
    let target: VerifiedTarget;
    try {
      target = await verifyTarget(ctx.db, params);
    } catch (err) {
      if (!(err instanceof UntrustedRedirectError)) throw err;
      return reply.code(err.status).headers(PAGE_HEADERS).send(errorPage(err.message));
    }
    // Phase two: every other error goes back to the client (RFC 6749 4.1.2.1), in the response mode asked for.
    try {
      const authRequest = validateRequest(target, params);
      const outcome = await authorize(ctx, authRequest, request.cookies[sessionCookie(ctx.config).name]);
      if (outcome.kind === 'respond') return sendAuthorizationResponse(reply, outcome.response);
      const binding = interactionCookie(ctx.config, outcome.interactionId);
      reply.setCookie(binding.name, outcome.bindingSecret, binding.options);
      return redirect(reply, `${ctx.config.issuer}/interaction/${outcome.interactionId}`);
    } catch (err) {
      const { oauth, unexpected } = toOAuthError(err);
      if (unexpected) request.log.error({ err }, 'authorization request failed');
      return sendAuthorizationResponse(reply, errorResponse(ctx, target, oauth));
    }
  }

  app.get('/authorize', { config: { html: true } }, async (request, reply) => {
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    let params: RawParams;
    try {
      params = parseForm(query);
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err;
      return reply.code(400).headers(PAGE_HEADERS).send(errorPage(err.description));
    }
    return handle(request, reply, params);
  });

  app.post('/authorize', { config: { html: true } }, async (request, reply) => {
    return handle(request, reply, (request.body ?? {}) as RawParams);
  });
}
