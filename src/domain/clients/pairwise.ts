// Pairwise subject identifiers (OIDC Core 8.1): each sector sees its own `sub` for a user, which no other can link.
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { Db } from '../../storage/database.js';
import { sharedSecret } from '../../storage/risk.js';
import type { Clock } from '../clock.js';

/** OIDC Core 8: the subject identifier types; `subject_types_supported` lists both. */
export const SUBJECT_TYPES = ['public', 'pairwise'] as const;
export type SubjectType = (typeof SUBJECT_TYPES)[number];

const HKDF_INFO = 'sso-provider pairwise subject v1';

/**
 * The sector of a pairwise client, or null for a public one. OIDC Core 8.1: "the Sector Identifier used for
 * pairwise identifier calculation is the host component of the sector_identifier_uri"; without one, "the host
 * component of the registered redirect_uri" (all of them share one host: client-metadata.ts refuses otherwise).
 */
export function pairwiseSectorOf(metadata: Record<string, unknown>, redirectUris: readonly string[]): string | null {
  if (metadata.subject_type !== 'pairwise') return null;
  const source = typeof metadata.sector_identifier_uri === 'string' ? metadata.sector_identifier_uri : redirectUris[0];
  // A pairwise client with neither is refused when registered; should one slip through, it gets no subject at all.
  if (source === undefined || !URL.canParse(source)) throw new Error('a pairwise client has no sector identifier');
  return new URL(source).host;
}

/**
 * The `sub` a client sees for a user: the local user id for a public client; for a pairwise one, OIDC Core 8.1's
 * "keyed hash" of the sector and the local account id: HMAC-SHA256 under a key derived (HKDF) from a server secret
 * that every instance shares, so the value is the same everywhere and at every time, and unlinkable across sectors.
 */
export class SubjectIdentifiers {
  private readonly key: Buffer;

  constructor(secret: Buffer) {
    if (secret.length < 32) throw new Error('the pairwise subject secret must be at least 32 bytes');
    this.key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), HKDF_INFO, 32));
  }

  /** The sub for `userId` at a client of `sector` (null: public). */
  subjectFor(sector: string | null, userId: string): string {
    if (sector === null) return userId;
    // The NUL keeps a sector and a user id from running into each other (host names and uuids hold none).
    return createHmac('sha256', this.key).update(sector).update('\0').update(userId).digest('base64url');
  }
}

/**
 * The server's pairwise secret: random, made by the first instance and kept in the database (server_secrets), so
 * that every instance derives the same subjects. It is its own secret: changing DEVICE_SECRET or
 * KEYS_ENCRYPTION_SECRET does not change which user a pairwise client knows.
 */
export async function loadSubjectIdentifiers(db: Db, clock: Clock): Promise<SubjectIdentifiers> {
  const secret = await sharedSecret(db, 'pairwise-subject', () => randomBytes(32).toString('base64url'), clock());
  return new SubjectIdentifiers(Buffer.from(secret, 'utf8'));
}
