// A client may require that its users sign in with a second factor (`require_mfa` client metadata, as Keycloak's
// per-client authentication flows or Auth0's MFA policy allow): a session counts for it only when its amr says `mfa`
// (RFC 8176 2, "Multiple-factor authentication"), and a sign-in for it that used one factor goes on to the second
// factor (src/domain/accounts/second-factor.ts) whatever the risk verdict said.
import { countPasskeys } from '../../storage/passkeys.js';
import type { UserRow } from '../../storage/schema.js';
import type { ProviderContext } from '../context.js';
import { canAnswerWithAuthenticator } from './authenticator.js';

/** RFC 8176 2 `mfa`. */
export const MFA_AMR = 'mfa';

/** Does a sign-in with these amr values satisfy a client that requires (`requireMfa`) a second factor? */
export function meetsMfaRequirement(amr: readonly string[] | null, requireMfa: boolean): boolean {
  return !requireMfa || (amr ?? []).includes(MFA_AMR);
}

/** Can the user answer a second factor: an authenticator app, a passkey, or a verified address to send a code to? */
export async function hasSecondFactor(ctx: ProviderContext, user: Pick<UserRow, 'id' | 'email' | 'email_verified'>): Promise<boolean> {
  if (user.email !== null && user.email_verified) return true;
  return (await canAnswerWithAuthenticator(ctx, user.id)) || (await countPasskeys(ctx.db, user.id)) > 0;
}
