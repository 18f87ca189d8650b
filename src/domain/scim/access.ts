// Who may provision over SCIM (issue 20): a confidential client holding a client_credentials access token granted
// the `scim` scope, which its registered scope must list (RFC 6750 bearer tokens; src/domain/tokens/client-token-scopes.ts).
import type { ProviderContext } from '../context.js';
import { clientTokenScopes } from '../tokens/client-token-scopes.js';

export const SCIM_SCOPE = 'scim';

/** The client a token stands for; InvalidToken (401) or InsufficientScope (403) otherwise. */
export async function scimClient(ctx: Pick<ProviderContext, 'db' | 'clock'>, token: string): Promise<string> {
  const { clientId } = await clientTokenScopes(ctx, token, [SCIM_SCOPE], {
    description: `SCIM provisioning needs a client_credentials token with the ${SCIM_SCOPE} scope`,
    challenge: SCIM_SCOPE,
  });
  return clientId;
}
