// The bearer token of a request to one of our APIs (RFC 6750 2.1), in the Authorization header only.
import type { FastifyRequest } from 'fastify';
import { InvalidRequest, InvalidToken, OAuthError } from '../errors/oauth-error.js';

/**
 * RFC 6750 3.1: "If the request lacks any authentication information (e.g., the client was unaware that
 * authentication is necessary or attempted using an unsupported authentication method), the resource server
 * SHOULD NOT include an error code or other error information" in the challenge.
 */
export class BearerTokenRequired extends OAuthError {
  constructor(scope: string) {
    super('invalid_token', 'a bearer access token is required', 401, { 'www-authenticate': `Bearer realm="sso", scope="${scope}"` });
  }
}

/**
 * RFC 6750 2.1: `Authorization: Bearer b64token`; the query parameter of 2.3 is refused, as it ends up in logs.
 * `scope` is what the challenge of a request without a token names.
 */
export function bearerToken(request: FastifyRequest, scope: string): string {
  if ((request.query as Record<string, unknown> | undefined)?.access_token !== undefined)
    throw new InvalidRequest('send the access token in the Authorization header');
  const header = request.headers.authorization?.trim();
  if (!header || !/^Bearer(\s|$)/i.test(header)) throw new BearerTokenRequired(scope);
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header);
  if (!match?.[1]) throw new InvalidToken('the Authorization header is not a Bearer token');
  return match[1];
}
