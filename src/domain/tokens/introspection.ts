// Token introspection (RFC 7662): what a client may learn about one of its own tokens.
import { InvalidClient } from '../../errors/oauth-error.js';
import type { Client } from '../clients/clients.js';
import { epochSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { required, single, type RawParams } from '../params.js';
import { findIssuedToken, isActive, parseTokenTypeHint, type IssuedToken } from './token-lookup.js';
import { findResourceServers } from '../../storage/resource-servers.js';
import { organizationClaimsFor } from './organization-claims.js';

export interface IntrospectionResponse {
  org_id?: string;
  org_name?: string;
  org_roles?: string[];
  active: boolean;
  scope?: string;
  client_id?: string;
  sub?: string;
  exp?: number;
  iat?: number;
  token_type?: 'Bearer' | 'DPoP' | 'refresh_token';
  iss?: string;
  aud?: string;
  /** RFC 9449 6.2: the key a DPoP-bound token is bound to. */
  cnf?: { jkt: string };
}

export async function introspectToken(ctx: ProviderContext, client: Client, params: RawParams): Promise<IntrospectionResponse> {
  // RFC 7662 2.1: "the endpoint MUST also require some form of authorization to access this endpoint":
  // a public client proves nothing but its client_id.
  if (client.isPublic) throw new InvalidClient('client authentication is required');
  const token = required(params, 'token');
  const hint = parseTokenTypeHint(single(params, 'token_type_hint'));
  const found = await findIssuedToken(ctx, token, hint);
  // RFC 7662 2.2: a token that "is not active, does not exist on this server, or the protected resource is not
  // allowed to introspect" gets "active" false, and the server "SHOULD NOT include any additional information".
  if (!found || !(await mayIntrospect(ctx, client, found)) || !isActive(found, ctx.clock())) return { active: false };
  const { row } = found;
  const audience = found.type === 'access_token' ? found.row.audience : null;
  const jkt = found.row.jkt;
  return {
    active: true,
    scope: row.scope,
    client_id: row.client_id,
    ...(row.user_id === null ? {} : { sub: ctx.subjects.subjectFor(client.pairwiseSector, row.user_id) }),
    exp: epochSeconds(row.expires_at),
    iat: epochSeconds(row.issued_at),
    token_type: found.type === 'refresh_token' ? 'refresh_token' : jkt === null ? 'Bearer' : 'DPoP',
    iss: ctx.config.issuer,
    ...(audience === null ? {} : { aud: audience }),
    ...(jkt === null ? {} : { cnf: { jkt } }),
    // RFC 7662 2.2: "Specific implementations MAY extend this structure with their own service-specific response
    // names as top-level members": issue 40's org_id, org_name (and org_roles) for a grant for an organization.
    ...(await organizationClaimsFor(ctx.db, row)),
  };
}

/**
 * RFC 7662 2.1: the client the token was issued to; and for a token issued for a resource server, the clients that
 * resource server names (itself, authenticating as a client), which must check the tokens sent to it.
 */
async function mayIntrospect(ctx: ProviderContext, client: Client, found: IssuedToken): Promise<boolean> {
  if (found.row.client_id === client.clientId) return true;
  if (found.type !== 'access_token' || found.row.audience === null) return false;
  const [server] = await findResourceServers(ctx.db, [found.row.audience]);
  return server?.introspecting_clients.includes(client.clientId) ?? false;
}
