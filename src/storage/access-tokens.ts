// Repository for opaque bearer access tokens, looked up by the digest of their value.
import type { Db } from './database.js';
import type { UserRow } from './schema.js';

export interface AccessTokenWithUser {
  clientId: string;
  scope: string;
  expiresAt: Date;
  revokedAt: Date | null;
  user: UserRow;
}

/** The token and its user in one round trip (the userinfo hot path). */
export async function findAccessTokenWithUser(db: Db, tokenHash: string): Promise<AccessTokenWithUser | undefined> {
  const row = await db
    .selectFrom('access_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .selectAll('u')
    .select(['t.client_id as token_client_id', 't.scope as token_scope', 't.expires_at as token_expires_at', 't.revoked_at as token_revoked_at'])
    .where('t.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const { token_client_id, token_scope, token_expires_at, token_revoked_at, ...user } = row;
  return { clientId: token_client_id, scope: token_scope, expiresAt: token_expires_at, revokedAt: token_revoked_at, user };
}
