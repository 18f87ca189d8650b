// The user columns a token statement returns beside its own row: the ID token's claims need no second query.
import type { UserRow } from './schema.js';

/** What the claims of a user are made of (src/domain/accounts/users.ts standardClaims). */
export type ClaimsUser = Pick<UserRow, 'id' | 'username' | 'email' | 'email_verified' | 'claims' | 'updated_at' | 'locale'>;

/** The users columns a token statement reads. */
const USER_CLAIM_FIELDS = ['username', 'email', 'email_verified', 'claims', 'updated_at', 'locale'] as const;

/** The users columns of a token statement, prefixed so that they cannot collide with the token row's own. */
export const USER_CLAIM_COLUMNS = USER_CLAIM_FIELDS.map((field) => `users.${field} as user_${field}` as const);

/** The names those columns have in the statement's answer. */
export const USER_CLAIM_ALIASES = USER_CLAIM_FIELDS.map((field) => `user_${field}` as const);

export interface UserClaimColumns {
  user_username: string;
  user_email: string | null;
  user_email_verified: boolean;
  user_claims: Record<string, unknown>;
  user_updated_at: Date;
  user_locale: string | null;
}

/** The user a token row's `user_id` and prefixed columns describe. */
export function claimsUserOf(userId: string, row: UserClaimColumns): ClaimsUser {
  return {
    id: userId,
    username: row.user_username,
    email: row.user_email,
    email_verified: row.user_email_verified,
    claims: row.user_claims,
    updated_at: row.user_updated_at,
    locale: row.user_locale,
  };
}
