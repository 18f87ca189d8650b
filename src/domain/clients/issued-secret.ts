// A client secret generated here (256 random bits, RFC 6749 10.10), for dynamic registration and the admin command
// line: kept as a keyed digest (src/domain/clients/client-secret-digest.ts) and, for client_secret_jwt, sealed too,
// since its assertions are HMACs keyed with the secret itself (OIDC Core 9).
import type { PasswordHasher } from '../accounts/passwords.js';
import type { SecretColumns } from '../client-entry.js';
import { sealSecret, type SealingContext } from '../keys/sealed-secrets.js';
import { randomToken } from '../secrets.js';
import type { TokenEndpointAuthMethod } from './auth-methods.js';

export async function issueClientSecret(
  ctx: SealingContext & { readonly passwords: PasswordHasher },
  clientId: string,
  method: TokenEndpointAuthMethod,
): Promise<{ secret: string; columns: SecretColumns }> {
  const secret = randomToken();
  const sealed = method === 'client_secret_jwt' ? await sealSecret(ctx, 'client-secret', clientId, Buffer.from(secret, 'utf8')) : null;
  return { secret, columns: { client_secret_hash: ctx.passwords.digestGeneratedSecret(secret), client_secret_sealed: sealed } };
}
