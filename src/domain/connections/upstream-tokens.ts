// Issue 19: "Upstream tokens are never logged and are not kept unless a setting asks for it (then encrypted)". With
// `store_tokens` a connection keeps, on each link, the token response (RFC 6749 5.1) of the last sign-in through
// it, sealed under its own purpose and bound to the connection and the upstream subject, so that a sealed value
// cannot be moved to another link. Admins read them back (as Auth0's read:user_idp_tokens and Keycloak's stored
// broker tokens let an application call the upstream API for the person); nothing else does.
import { storeLinkTokens } from '../../storage/connections.js';
import type { ProviderContext } from '../context.js';
import { readSealedSecret } from '../../storage/sealed-secret.js';
import type { StoredSecret } from '../keys/sealed-secrets.js';
import { openSecret, sealSecret, type SealingContext } from '../keys/sealed-secrets.js';
import type { Connection } from './connection.js';

/** RFC 6749 5.1 members worth keeping; `expires_at` is the clock's reading of `expires_in` when they arrived. */
export interface UpstreamTokens {
  access_token: string;
  token_type: string;
  refresh_token?: string;
  id_token?: string;
  scope?: string;
  expires_at?: string;
}

/** The longest token kept; a larger value is a response we will not carry around. */
const MAX_TOKEN_LENGTH = 16 * 1024;

function shortText(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_TOKEN_LENGTH ? value : undefined;
}

/** The members kept from a token response; undefined when it has no usable access token. */
export function tokensOf(response: Record<string, unknown>, now: Date): UpstreamTokens | undefined {
  const accessToken = shortText(response.access_token);
  if (accessToken === undefined) return undefined;
  const expiresIn = response.expires_in;
  const lifetime = typeof expiresIn === 'number' ? expiresIn : typeof expiresIn === 'string' ? Number(expiresIn) : NaN;
  const tokens: UpstreamTokens = { access_token: accessToken, token_type: shortText(response.token_type) ?? 'Bearer' };
  for (const name of ['refresh_token', 'id_token', 'scope'] as const) {
    const value = shortText(response[name]);
    if (value !== undefined) tokens[name] = value;
  }
  if (Number.isInteger(lifetime) && lifetime > 0 && lifetime < 10 * 365 * 86_400)
    tokens.expires_at = new Date(now.getTime() + lifetime * 1000).toISOString();
  return tokens;
}

const owner = (connectionId: string, subject: string) => `${connectionId}\u0000${subject}`;

/** Sealed for the link (connection, subject); undefined when no KEYS_ENCRYPTION_SECRET would encrypt them. */
export async function sealUpstreamTokens(
  ctx: SealingContext,
  connectionId: string,
  subject: string,
  tokens: UpstreamTokens,
): Promise<StoredSecret | undefined> {
  if (ctx.config.keysEncryptionSecret === undefined) return undefined;
  return sealSecret(ctx, 'upstream-tokens', owner(connectionId, subject), Buffer.from(JSON.stringify(tokens)));
}

/** The tokens a link keeps, opened and checked member by member; null when the stored value is not tokens. */
export async function openUpstreamTokens(
  ctx: SealingContext,
  connectionId: string,
  subject: string,
  sealed: Record<string, unknown>,
): Promise<UpstreamTokens | null> {
  const opened = await openSecret(ctx, 'upstream-tokens', owner(connectionId, subject), sealed);
  let parsed: unknown;
  try {
    parsed = JSON.parse(opened.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const record = parsed as Record<string, unknown>;
  if (typeof record.access_token !== 'string' || typeof record.token_type !== 'string') return null;
  const tokens: UpstreamTokens = { access_token: record.access_token, token_type: record.token_type };
  for (const name of ['refresh_token', 'id_token', 'scope', 'expires_at'] as const) {
    if (record[name] === undefined) continue;
    if (typeof record[name] !== 'string') return null;
    tokens[name] = record[name];
  }
  return tokens;
}

/**
 * Keeps the sign-in's tokens on the link (connection, subject) when the connection asks for it: sealed now, or the
 * value a link proof carried sealed for the same link. Nothing is kept without KEYS_ENCRYPTION_SECRET.
 */
export async function keepUpstreamTokens(
  ctx: Pick<ProviderContext, 'db' | 'clock' | 'config'>,
  connection: Pick<Connection, 'id' | 'storeTokens'>,
  subject: string,
  tokens: UpstreamTokens | { sealed: unknown } | undefined | null,
): Promise<void> {
  if (!connection.storeTokens || !tokens) return;
  // What a link proof carried is read through SEALED_SECRET like any stored secret: one that does not fit is not kept.
  const carried = 'sealed' in tokens ? readSealedSecret(tokens.sealed) : undefined;
  if (carried && !carried.ok) return;
  const sealed = carried ? carried.value : await sealUpstreamTokens(ctx, connection.id, subject, tokens as UpstreamTokens);
  if (sealed === undefined) return;
  await storeLinkTokens(ctx.db, { connectionId: connection.id, subject }, sealed, ctx.clock());
}
