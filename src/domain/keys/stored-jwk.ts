// The shapes of signing_keys.public_jwk and signing_keys.private_jwk, and the rows of signing keys this version reads.
import { object, readVersioned, string, type Shape, type VersionedShapes } from '../../storage/json-shape.js';
import type { SigningKeyRow } from '../../storage/schema.js';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

// The fields checked; the value is kept as written (a JWK has members of its own kind: n and e, x and y, ...).
const publicFields = object<{ kty: string; kid: string }>({ kty: string, kid: string });
const envelopeFields = object<{ iv: string; tag: string; ciphertext: string }>({ iv: string, tag: string, ciphertext: string });
const clearFields = object<{ kty: string; d: string }>({ kty: string, d: string });

/** Version 1 of a public JWK: the JWK as jose exported it (RFC 7517 4.1: kty is required), kept as written. */
const PUBLIC_JWK_V1: Shape<Record<string, unknown>> = (value, path) => {
  publicFields(value, path);
  return value as Record<string, unknown>;
};

/**
 * Version 1 of a private JWK as stored: the encrypted envelope {v: 1, iv, tag, ciphertext} (key-encryption.ts), or
 * the clear JWK without `v` when no KEYS_ENCRYPTION_SECRET is set (RFC 7518 6.2.2.1 / 6.3.2.1: d is the private part).
 */
const PRIVATE_JWK_V1: Shape<Record<string, unknown>> = (value, path) => {
  if (isRecord(value) && value.v === 1) envelopeFields(value, path);
  else clearFields(value, path);
  return value as Record<string, unknown>;
};

/** Version 1 of each is stored as before versions were kept (an envelope's own v: 1, a JWK without v). */
export const STORED_PUBLIC_JWK: VersionedShapes<Record<string, unknown>> = { 1: PUBLIC_JWK_V1 };
export const STORED_PRIVATE_JWK: VersionedShapes<Record<string, unknown>> = { 1: PRIVATE_JWK_V1 };

/** Why a key row is not read: which column, and the path or version that did not fit (never a value). */
export type UnreadableKey = (kid: string, reason: string) => void;

/** Why a key row does not fit this version's shapes, or undefined when it does. */
export function keyRowMisfit(row: Pick<SigningKeyRow, 'private_jwk' | 'public_jwk'>): string | undefined {
  const pub = readVersioned(row.public_jwk, STORED_PUBLIC_JWK, 'public_jwk');
  if (!pub.ok) return `public_jwk: ${pub.reason}`;
  const priv = readVersioned(row.private_jwk, STORED_PRIVATE_JWK, 'private_jwk');
  if (!priv.ok) return `private_jwk: ${priv.reason}`;
  return undefined;
}

/** The rows this version reads; each other one is left out of the key set and `unreadable` is told why. */
export function readableKeyRows<R extends Pick<SigningKeyRow, 'kid' | 'private_jwk' | 'public_jwk'>>(
  rows: readonly R[],
  unreadable?: UnreadableKey,
): R[] {
  return rows.filter((row) => {
    const why = keyRowMisfit(row);
    if (why !== undefined) unreadable?.(row.kid, why);
    return why === undefined;
  });
}
