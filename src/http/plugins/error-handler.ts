// What every surface's error handling shares: the request's refusal (for its log line), the OAuth wire (RFC 6749 5.2
// JSON, or a page for a route marked html) that the protocol endpoints and people's pages answer with, and the
// fallback for anything outside a surface (health, metrics, unknown paths). The management API and SCIM set their own
// handlers in their folders (src/http/admin-api/error-handler.ts, src/http/scim/error-handler.ts).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { InvalidRequest, OAuthError } from '../../errors/oauth-error.js';
import { toOAuthError } from '../../errors/to-oauth-error.js';
import { errorPage } from '../views/pages.js';
import { PAGE_HEADERS } from '../views/layout.js';
import { pageLanguage, type PageConfig } from '../page-language.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Pages answer errors with HTML; everything else with RFC 6749 5.2 JSON. */
    html?: boolean;
  }
  interface FastifyRequest {
    /** Why the request was refused, for its log line only (src/http/plugins/request-log.ts); null when not refused. */
    refusal: Refusal | null;
  }
}

/** An OAuthError's log-only part: its detail and the chain of errors that caused it, outermost first. */
export interface Refusal {
  error: string;
  detail?: string;
  causes?: string[];
}

/** The messages of an error's causes (ES2022 Error cause), as far down as they go (at most five). */
function causeChain(err: Error): string[] {
  const chain: string[] = [];
  for (let cause = err.cause; cause !== undefined && chain.length < 5; cause = cause instanceof Error ? cause.cause : undefined) {
    chain.push(cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause));
  }
  return chain;
}

function refusalOf(oauth: OAuthError): Refusal | null {
  const causes = causeChain(oauth);
  if (oauth.detail === undefined && causes.length === 0) return null;
  return { error: oauth.error, ...(oauth.detail !== undefined ? { detail: oauth.detail } : {}), ...(causes.length ? { causes } : {}) };
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

/** Sends what the client may see (error and error_description); the detail and causes go to the request's log line. */
function sendOAuthError(request: FastifyRequest, reply: FastifyReply, oauth: OAuthError, page: PageConfig): FastifyReply {
  request.refusal = refusalOf(oauth);
  reply.code(oauth.status).headers(oauth.headers);
  if (request.routeOptions.config?.html) {
    // The description stays as the client would get it (RFC 6749 5.2: ASCII); the sentence around it is translated.
    const t = pageLanguage(request, page);
    return reply.headers(PAGE_HEADERS).send(errorPage(t, t('authorize.invalid', { detail: oauth.description })));
  }
  return reply
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .send({ error: oauth.error, error_description: oauth.description });
}

/** A server that renders no page of its own (the metrics listener): an error page, if ever, in English, unbranded. */
const NO_PAGES: PageConfig = { defaultLocale: 'en', issuer: '', brand: { name: '', logoUrl: null, color: null } };

/**
 * The OAuth wire for any thrown value: RFC 6749 5.2 JSON, or an error page on a route marked html. The protocol
 * endpoints and the people's pages each set it in their own plugin; the console sets it with every route marked html.
 */
export function oauthErrorHandler(page: PageConfig = NO_PAGES) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const known = err instanceof OAuthError ? err : fromFastify(err);
    const { oauth, unexpected } = known ? { oauth: known, unexpected: false } : toOAuthError(err);
    if (unexpected) request.log.error({ err }, 'request failed');
    return sendOAuthError(request, reply, oauth, page);
  };
}

/** The root's part: the refusal every surface fills in, the OAuth wire outside any surface, and the JSON 404. */
export default fp(async function errorHandler(app: FastifyInstance, opts: { page?: PageConfig }) {
  app.decorateRequest('refusal', null);
  app.setErrorHandler(oauthErrorHandler(opts.page));
  app.setNotFoundHandler((_request, reply) => {
    reply.code(404).header('cache-control', 'no-store').send({ error: 'not_found', error_description: 'no such endpoint' });
  });
});
