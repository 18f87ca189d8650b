// OpenID Connect Discovery 1.0 metadata: what is advertised here is exactly what works.
import { DPOP_ALGS } from '../../domain/tokens/dpop.js';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { DEVICE_CODE_GRANT } from '../../domain/device-flow/device-authorization.js';
import { SIGNING_ALGS } from '../../domain/keys/keys.js';
import { CLAIMS_SUPPORTED } from '../../domain/claims.js';
import { SUPPORTED_SCOPES } from '../../domain/scope.js';
import { ORGANIZATION_CLAIMS } from '../../domain/tokens/organization-claims.js';
import { LOCALES } from '../../i18n/catalog.js';
import { ASSERTION_ALGS, AUTH_METHODS } from '../../domain/clients/auth-methods.js';
import { REQUEST_OBJECT_ALGS } from '../../domain/authorization/request-object.js';

/** RFC 8414 2: the algorithms client assertions (client_secret_jwt, private_key_jwt) may be signed with. */
const ASSERTION_SIGNING_ALGS = [...ASSERTION_ALGS.client_secret_jwt, ...ASSERTION_ALGS.private_key_jwt];
const CONFIDENTIAL_METHODS = AUTH_METHODS.filter((m) => m !== 'none');

export function discoveryDocument(config: Config): Record<string, unknown> {
  const issuer = config.issuer;
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    userinfo_endpoint: `${issuer}/userinfo`,
    jwks_uri: `${issuer}/jwks`,
    revocation_endpoint: `${issuer}/revoke`,
    // RFC 7009 5: public clients revoke their own tokens with their client_id alone.
    revocation_endpoint_auth_methods_supported: [...AUTH_METHODS],
    revocation_endpoint_auth_signing_alg_values_supported: ASSERTION_SIGNING_ALGS,
    introspection_endpoint: `${issuer}/introspect`,
    introspection_endpoint_auth_methods_supported: CONFIDENTIAL_METHODS,
    introspection_endpoint_auth_signing_alg_values_supported: ASSERTION_SIGNING_ALGS,
    // RP-Initiated Logout 1.0 2.1 and Back-Channel Logout 1.0 2.1.
    end_session_endpoint: `${issuer}/session/end`,
    // RFC 8628 4: the device authorization endpoint.
    device_authorization_endpoint: `${issuer}/device_authorization`,
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    scopes_supported: SUPPORTED_SCOPES,
    response_types_supported: ['code'],
    response_modes_supported: ['query', 'form_post'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', DEVICE_CODE_GRANT],
    // OIDC Core 8: public, and pairwise per client (subject_type, src/domain/clients/pairwise.ts).
    subject_types_supported: ['public', 'pairwise'],
    id_token_signing_alg_values_supported: [...SIGNING_ALGS],
    // OIDC Core 9: the secret methods, the two JWT assertions (RFC 7523), and none for public clients.
    token_endpoint_auth_methods_supported: [...AUTH_METHODS],
    token_endpoint_auth_signing_alg_values_supported: ASSERTION_SIGNING_ALGS,
    // Issue 40: the organization's claims beside the user's (src/domain/tokens/organization-claims.ts).
    claims_supported: [...CLAIMS_SUPPORTED, ...ORGANIZATION_CLAIMS],
    claim_types_supported: ['normal'],
    code_challenge_methods_supported: ['S256'],
    prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
    // Discovery 3: "Languages and scripts supported for the user interface, represented as a JSON array of BCP47
    // language tag values" (src/i18n/catalog.ts; the pages speak the first of the request's ui_locales among them).
    ui_locales_supported: [...LOCALES],
    authorization_response_iss_parameter_supported: true,
    // RFC 9449 5.1: the algorithms of DPoP proofs (src/domain/tokens/dpop.ts).
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
    // OIDC Core 5.5 (src/domain/tokens/claims-request.ts).
    claims_parameter_supported: true,
    // RFC 9101 / OIDC Core 6.1: signed request objects in `request` (src/domain/authorization/request-object.ts).
    request_parameter_supported: true,
    request_object_signing_alg_values_supported: [...REQUEST_OBJECT_ALGS],
    // OIDC Discovery 3: request_uri_parameter_supported says whether the OP takes request_uri values that point to
    // a request object it fetches (OIDC Core 6.2, RFC 9101 5.2), and defaults to true when omitted. This server
    // fetches none: the only request_uri it takes is its own, from the PAR endpoint, which RFC 9126 5 advertises
    // apart (pushed_authorization_request_endpoint). So false, said explicitly.
    request_uri_parameter_supported: false,
    require_request_uri_registration: false,
    // RFC 9126 5.
    pushed_authorization_request_endpoint: `${issuer}/par`,
    require_pushed_authorization_requests: config.pushedRequests.required,
    // RFC 8414 2 / OIDC Discovery 3: advertised exactly when the endpoint is served (RFC 7591).
    ...(config.registration.enabled ? { registration_endpoint: `${issuer}/register` } : {}),
  };
}

export default async function discoveryRoutes(app: FastifyInstance, opts: { config: Config }) {
  const body = JSON.stringify(discoveryDocument(opts.config));
  app.get('/.well-known/openid-configuration', async (_request, reply) => {
    return reply.header('content-type', 'application/json; charset=utf-8').header('cache-control', 'public, max-age=300').send(body);
  });
}
