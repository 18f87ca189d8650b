// How a client may authenticate at the endpoints that authenticate clients (RFC 6749 2.3, OIDC Core 9, RFC 7523),
// and which JWS algorithms a client assertion may be signed with.

/** The registered `token_endpoint_auth_method` values (OIDC Core 9; RFC 7591 2). */
export const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none'] as const;
export type TokenEndpointAuthMethod = (typeof AUTH_METHODS)[number];

/** The methods whose client holds a secret issued by this provider (kept as a digest; client_secret_jwt's also sealed). */
export const SECRET_AUTH_METHODS: readonly TokenEndpointAuthMethod[] = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt'];

/** The methods that authenticate with a client assertion (RFC 7523 2.2). */
export type AssertionAuthMethod = 'client_secret_jwt' | 'private_key_jwt';

/** RFC 7523 2.2: client_assertion_type for a JWT assertion. */
export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/**
 * The algorithms of each assertion method (OIDC Core 9): an HMAC with the client secret for client_secret_jwt
 * (OIDC Core 16.19 keeps the secret's entropy at 256 bits for HS256), a public key signature for private_key_jwt.
 * `none` never (OIDC Registration 2, token_endpoint_auth_signing_alg: "The value none MUST NOT be used").
 */
export const ASSERTION_ALGS: Readonly<Record<AssertionAuthMethod, readonly string[]>> = {
  client_secret_jwt: ['HS256', 'HS384', 'HS512'],
  private_key_jwt: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'],
};

export function holdsSecret(method: string): boolean {
  return (SECRET_AUTH_METHODS as readonly string[]).includes(method);
}

export function isAssertionMethod(method: string): method is AssertionAuthMethod {
  return method === 'client_secret_jwt' || method === 'private_key_jwt';
}
