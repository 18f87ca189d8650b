// Long-lived SCIM tokens (issue 20), for provisioning clients that take one fixed bearer token and never refresh it
// (Microsoft Entra's "Secret Token", Okta's "HTTP Header" mode): made by name (sso-admin scim-tokens, the management
// API), shown once, kept as a digest, listed, revoked; and the check of one on every SCIM request.
import { InvalidToken } from '../../errors/oauth-error.js';
import {
  deleteScimToken,
  findScimToken,
  findScimTokenByHash,
  insertScimToken,
  listScimTokenRows,
  touchScimToken,
} from '../../storage/scim-tokens.js';
import type { ScimTokenRow } from '../../storage/schema.js';
import { inAdminTransaction, logAdminAction, NOT_RECORDED, type AdminContext } from '../admin/admin.js';
import { AdminError } from '../admin-error.js';
import { isoTime } from '../admin/representations.js';
import type { ProviderContext } from '../context.js';
import { randomToken, sha256 } from '../secrets.js';

/** What tells a SCIM token from an access token at a glance, so that a request is checked one way only. */
export const SCIM_TOKEN_PREFIX = 'scim_';

/**
 * The shape of a long-lived SCIM token: the prefix and 256 random bits in base64url (48 characters in all). An access
 * token of ours is those 43 characters alone (or a JWT, with dots), so no access token can take this shape.
 */
export const isScimTokenShape = (token: string): boolean => /^scim_[A-Za-z0-9_-]{43}$/.test(token);
export const SCIM_TOKEN_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const MAX_EXPIRES_IN_DAYS = 3650;
/** last_used_at is written at most this often per token: a busy sync does not write on every request. */
export const LAST_USED_RESOLUTION_SECONDS = 60;

export interface ScimToken {
  name: string;
  createdAt: Date;
  /** Null: it does not expire. */
  expiresAt: Date | null;
  /** To the minute (LAST_USED_RESOLUTION_SECONDS); null: never used. */
  lastUsedAt: Date | null;
}

export interface NewScimToken {
  name: string;
  /** Whole days from now; none: it does not expire. */
  expiresInDays?: number;
}

/** What making or revoking a token needs: the database, the clock, and who acts, for the audit record. */
export type TokenAdminContext = Pick<AdminContext, 'db' | 'clock' | 'log' | 'actor' | 'origin'>;

const rowToToken = (row: ScimTokenRow): ScimToken => ({
  name: row.name,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  lastUsedAt: row.last_used_at,
});

const notFound = (name: string) => new AdminError(`no SCIM token "${name}" (scim-tokens list shows them)`, 'not_found');

/** Whether the token no longer opens SCIM at `now`. */
export const isExpired = (token: Pick<ScimToken, 'expiresAt'>, now: Date): boolean => token.expiresAt !== null && token.expiresAt <= now;

/** What the API and `--json` show of a token: never its value, which is not kept. */
export const scimTokenJson = (t: ScimToken, now: Date) => ({
  name: t.name,
  created_at: isoTime(t.createdAt),
  expires_at: t.expiresAt && isoTime(t.expiresAt),
  last_used_at: t.lastUsedAt && isoTime(t.lastUsedAt),
  expired: isExpired(t, now),
});

/** Why the entry cannot be a token (empty when it can). */
export function scimTokenEntryProblems(entry: NewScimToken): string[] {
  const problems: string[] = [];
  if (typeof entry.name !== 'string' || !SCIM_TOKEN_NAME.test(entry.name))
    problems.push('name must be 1 to 63 lowercase letters, digits, "-" or "_", starting with a letter or digit');
  const days = entry.expiresInDays;
  if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > MAX_EXPIRES_IN_DAYS))
    problems.push(`expires in must be a whole number of days from 1 to ${MAX_EXPIRES_IN_DAYS}`);
  return problems;
}

export async function listScimTokens(ctx: Pick<AdminContext, 'db'>): Promise<ScimToken[]> {
  return (await listScimTokenRows(ctx.db)).map(rowToToken);
}

export async function showScimToken(ctx: Pick<AdminContext, 'db'>, name: string): Promise<ScimToken> {
  const row = await findScimToken(ctx.db, name);
  if (!row) throw notFound(name);
  return rowToToken(row);
}

/** Makes a token; returns it with its value, the one time the value is shown (only its digest is kept). */
export async function createScimToken(ctx: TokenAdminContext, entry: NewScimToken): Promise<{ token: ScimToken; secret: string }> {
  const problems = scimTokenEntryProblems(entry);
  if (problems.length > 0) throw new AdminError(`SCIM token "${String(entry.name)}" was refused: ${problems.join('; ')}`);
  const secret = `${SCIM_TOKEN_PREFIX}${randomToken()}`;
  const now = ctx.clock();
  const expiresAt = entry.expiresInDays === undefined ? null : new Date(now.getTime() + entry.expiresInDays * 86_400_000);
  await inAdminTransaction(ctx, async (trx) => {
    if (!(await insertScimToken(trx, { name: entry.name, tokenHash: sha256(secret), now, expiresAt })))
      throw new AdminError(`SCIM token "${entry.name}" exists already (revoke it first, or choose another name)`, 'conflict');
    await logAdminAction(ctx, trx, {
      event: 'admin.scim_token.created',
      target: { type: 'scim_token', id: entry.name },
      changes: { expires_at: expiresAt && isoTime(expiresAt), token: NOT_RECORDED },
      log: { scimToken: entry.name, expiresAt: expiresAt && isoTime(expiresAt) },
    });
  });
  return { token: { name: entry.name, createdAt: now, expiresAt, lastUsedAt: null }, secret };
}

/** Revokes the token: its row goes, and the next SCIM request with it, on any instance, is refused. */
export async function revokeScimToken(ctx: TokenAdminContext, name: string): Promise<ScimToken> {
  const token = await showScimToken(ctx, name);
  await inAdminTransaction(ctx, async (trx) => {
    if (!(await deleteScimToken(trx, name))) throw notFound(name);
    await logAdminAction(ctx, trx, {
      event: 'admin.scim_token.revoked',
      target: { type: 'scim_token', id: name },
      log: { scimToken: name },
    });
  });
  return token;
}

/**
 * The name of the SCIM token `value` is, read from the database on every request (a revocation counts at once on
 * every instance); InvalidToken (401) when it is unknown, revoked or expired. Its last use is noted at most once
 * a minute.
 */
export async function scimTokenName(ctx: Pick<ProviderContext, 'db' | 'clock'>, value: string): Promise<string> {
  const row = await findScimTokenByHash(ctx.db, sha256(value));
  const now = ctx.clock();
  // RFC 6750 3.1 invalid_token: "The access token provided is expired, revoked, malformed, or invalid for other reasons."
  if (!row || isExpired(rowToToken(row), now)) throw new InvalidToken('the access token is invalid, expired or revoked');
  const notBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_SECONDS * 1000);
  if (row.last_used_at === null || row.last_used_at < notBefore) await touchScimToken(ctx.db, row.name, now, notBefore);
  return row.name;
}
