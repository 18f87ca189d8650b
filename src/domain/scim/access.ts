// Who may provision over SCIM (issue 20): a confidential client holding a client_credentials access token granted
// the `scim` scope, which its registered scope must list (RFC 6750 bearer tokens; src/domain/tokens/client-token-scopes.ts),
// or a long-lived SCIM token an admin made (scim_..., src/domain/scim/scim-tokens.ts) for Entra's or Okta's fixed token.
import type { ProviderContext } from '../context.js';
import { clientTokenScopes } from '../tokens/client-token-scopes.js';
import { isScimTokenShape, scimTokenName } from './scim-tokens.js';

export const SCIM_SCOPE = 'scim';

/** How a long-lived token's holder is named as the actor of the audit records its changes write. */
export const scimTokenActor = (name: string): string => `scim-token:${name}`;

/**
 * Who a token stands for: the client of an access token, or `scim-token:NAME`. InvalidToken (401) or
 * InsufficientScope (403) otherwise. The token's shape alone picks the one lookup made (isScimTokenShape).
 */
export async function scimClient(ctx: Pick<ProviderContext, 'db' | 'clock'>, token: string): Promise<string> {
  if (isScimTokenShape(token)) return scimTokenActor(await scimTokenName(ctx, token));
  const { clientId } = await clientTokenScopes(ctx, token, [SCIM_SCOPE], {
    description: `SCIM provisioning needs a client_credentials token with the ${SCIM_SCOPE} scope`,
    challenge: SCIM_SCOPE,
  });
  return clientId;
}
