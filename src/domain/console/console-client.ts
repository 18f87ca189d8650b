// The web console is a client of this provider (issue 20, docs/console.md): the built-in confidential client
// `sso-console`, whose one redirect URI is {BASE_URL}/admin/callback. It is written at start-up when missing, with a
// random secret whose keyed digest is kept (as for any generated secret) and which is then thrown away: nobody holds
// it, and the console redeems its codes in-process (console-sign-in.ts), so the client cannot be used from outside.
import { insertClientIfAbsent, findClient } from '../../storage/clients.js';
import { clientColumns, clientRowValues } from '../client-entry.js';
import type { ProviderContext } from '../context.js';
import { randomToken } from '../secrets.js';

export const CONSOLE_CLIENT_ID = 'sso-console';

export const consoleRedirectUri = (config: Pick<ProviderContext['config'], 'baseUrl'>): string => `${config.baseUrl}/admin/callback`;

/** Writes the console's client when it is missing; an existing row (another instance's, or an edited one) is kept. */
export async function ensureConsoleClient(ctx: Pick<ProviderContext, 'db' | 'config' | 'clock' | 'passwords'>): Promise<void> {
  if (await findClient(ctx.db, CONSOLE_CLIENT_ID)) return;
  const columns = clientColumns(
    {
      client_id: CONSOLE_CLIENT_ID,
      client_name: 'Admin console',
      redirect_uris: [consoleRedirectUri(ctx.config)],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      // Issue 20: "an admin signs in through the authorization code flow, with a second factor required".
      require_mfa: true,
    },
    { client_secret_hash: ctx.passwords.digestGeneratedSecret(randomToken()), client_secret_sealed: null },
  );
  const now = ctx.clock();
  await insertClientIfAbsent(ctx.db, { client_id: CONSOLE_CLIENT_ID, ...clientRowValues(columns), created_at: now, updated_at: now });
}
