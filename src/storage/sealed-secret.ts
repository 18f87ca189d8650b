// The one shape every sealed-secret column is read back through (a TOTP secret, a client's or a connection's secret,
// a directory's bind password, an upstream verifier or tokens, a webhook's secret): storage vocabulary, since it
// names only the envelope's layout (src/domain/keys/sealed-secrets.ts seals and opens what is inside).
import {
  exactly,
  object,
  readVersioned,
  string,
  writeSelfVersioned,
  type Shape,
  type Versioned,
  type VersionedShapes,
} from './json-shape.js';

/** Version 0: kept in the clear (no KEYS_ENCRYPTION_SECRET), marked so. */
export interface ClearSecret {
  v: 0;
  clear: string;
}

/** Version 1: AES-256-GCM, each part base64url. */
export interface SealedEnvelope {
  v: 1;
  iv: string;
  tag: string;
  ciphertext: string;
}

export type SealedSecret = ClearSecret | SealedEnvelope;

const CLEAR_V0: Shape<ClearSecret> = object<ClearSecret>({ v: exactly(0), clear: string });

const ENVELOPE_V1: Shape<SealedEnvelope> = object<SealedEnvelope>({
  v: exactly(1),
  iv: string,
  tag: string,
  ciphertext: string,
});

/**
 * Unlike other columns, a sealed secret's version is not raised with its code but chosen by the configuration (in
 * the clear or not); a version this code does not know is refused, and the secret counts as one that does not open.
 */
export const SEALED_SECRET: VersionedShapes<SealedSecret> = { 0: CLEAR_V0, 1: ENVELOPE_V1 };

export function readSealedSecret(stored: unknown): Versioned<SealedSecret> {
  return readVersioned(stored, SEALED_SECRET);
}

/** The column's text, checked first: what is written is what every sealed-secret column reads back. */
export function writeSealedSecret(value: SealedSecret): string {
  return writeSelfVersioned(value, SEALED_SECRET);
}
