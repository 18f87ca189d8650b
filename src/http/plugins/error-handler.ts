// The one error handler: renders any thrown value as an OAuth error, JSON for APIs, a page for pages.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { InvalidRequest, OAuthError } from '../../errors/oauth-error.js';
import { toOAuthError } from '../../errors/to-oauth-error.js';
import { errorPage } from '../views/pages.js';
import { PAGE_HEADERS } from '../views/layout.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Pages answer errors with HTML; everything else with RFC 6749 5.2 JSON. */
    html?: boolean;
  }
}

/** Fastify's own 4xx errors (bad content type, body too large, malformed JSON...) are client mistakes. */
function fromFastify(err: FastifyError): OAuthError | undefined {
  if (err.validation) {
    const first = err.validation[0];
    const field = first?.instancePath?.replace(/^\//, '') || (first?.params as { missingProperty?: string })?.missingProperty;
    if (first?.keyword === 'type' && field) return new InvalidRequest(`parameter ${field} must not be repeated`);
    if (first?.keyword === 'required' && field) return new InvalidRequest(`parameter ${field} is required`);
    return new InvalidRequest('the request parameters are not valid');
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new InvalidRequest('the request body must be application/x-www-form-urlencoded');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new InvalidRequest('the request body is too large');
    default:
      return typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500
        ? new InvalidRequest('the request is malformed')
        : undefined;
  }
}

export function sendOAuthError(request: FastifyRequest, reply: FastifyReply, oauth: OAuthError): FastifyReply {
  reply.code(oauth.status).headers(oauth.headers);
  if (request.routeOptions.config?.html) {
    return reply.headers(PAGE_HEADERS).send(errorPage(oauth.description));
  }
  return reply
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .send({ error: oauth.error, error_description: oauth.description });
}

export default fp(async function errorHandler(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const known = err instanceof OAuthError ? err : fromFastify(err);
    const { oauth, unexpected } = known ? { oauth: known, unexpected: false } : toOAuthError(err);
    if (unexpected) request.log.error({ err }, 'request failed');
    return sendOAuthError(request, reply, oauth);
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).header('cache-control', 'no-store').send({ error: 'not_found', error_description: 'no such endpoint' });
  });
});
