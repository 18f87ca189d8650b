// The signing keys' administration, shared by the server's start, `sso-admin keys` and the tests: the first key of
// each algorithm, encryption of clear keys, rotation, and the listing of every key with its state.
import type { JWK } from 'jose';
import type { Db } from '../../storage/database.js';
import type { SigningKeyRow } from '../../storage/schema.js';
import { insertSigningKey, listSigningKeys, updatePrivateJwk, withSigningKeysLock } from '../../storage/signing-keys.js';
import { addSeconds } from '../clock.js';
import { generateSigningKey } from './key-generation.js';
import { isEnvelope, openKeyCipher, type KeyCipher } from './key-encryption.js';
import { keyState, keyTimeline, type KeyState, type KeyTimes } from './key-lifecycle.js';
import { SIGNING_ALGS, type SigningAlg } from './signing-algs.js';
import { readableKeyRows } from './stored-jwk.js';

export interface PreparedKeys {
  cipher: KeyCipher;
  rows: SigningKeyRow[];
  /** Keys generated because their algorithm had none. */
  generated: Array<{ kid: string; alg: SigningAlg }>;
  /** How many clear private keys were encrypted. */
  encrypted: number;
}

async function prepareLocked(trx: Db, secret: string | undefined, now: Date): Promise<PreparedKeys> {
  let rows = await listSigningKeys(trx);
  const cipher = await openKeyCipher(trx, secret, rows, now);
  const missing = SIGNING_ALGS.filter((alg) => !rows.some((r) => r.alg === alg));
  const fresh = await Promise.all(missing.map(generateSigningKey));
  for (const key of fresh) {
    // Nothing can have cached a JWKS without this algorithm's key, and nothing else can sign with it: active at once.
    await insertSigningKey(trx, { ...key, privateJwk: cipher.seal(key.kid, key.privateJwk), createdAt: now, activatesAt: now });
  }
  let encrypted = 0;
  if (cipher.encrypts) {
    // Only a clear JWK this version reads is sealed: a row of another version is left as it was written.
    for (const row of readableKeyRows(rows).filter((r) => !isEnvelope(r.private_jwk))) {
      await updatePrivateJwk(trx, row.kid, cipher.seal(row.kid, row.private_jwk as JWK));
      encrypted += 1;
    }
  }
  if (fresh.length > 0 || encrypted > 0) rows = await listSigningKeys(trx);
  return { cipher, rows, generated: fresh.map(({ kid, alg }) => ({ kid, alg })), encrypted };
}

/**
 * Makes sure every algorithm has a key and, with a secret, that every private key is encrypted (idempotent);
 * stops with KeyEncryptionError when the secret is missing or wrong.
 */
export function prepareSigningKeys(db: Db, secret: string | undefined, now: Date): Promise<PreparedKeys> {
  return withSigningKeysLock(db, (trx) => prepareLocked(trx, secret, now));
}

export interface RotationOptions {
  secret: string | undefined;
  algs: readonly SigningAlg[];
  /** Published at once, signing only after this delay (KEY_ACTIVATION_DELAY_SECONDS). */
  activationDelaySeconds: number;
  now: Date;
  /** Records the rotation (its audit record) in the transaction that adds the keys. */
  record?: (trx: Db, rotated: readonly RotatedKey[]) => Promise<void>;
}

export interface RotatedKey {
  kid: string;
  alg: SigningAlg;
  activatesAt: Date;
}

/** Adds a new key for each algorithm; the current one retires when the new one activates. */
export async function rotateSigningKeys(db: Db, options: RotationOptions): Promise<RotatedKey[]> {
  if (!Number.isInteger(options.activationDelaySeconds) || options.activationDelaySeconds < 0) {
    throw new RangeError('activationDelaySeconds must be a whole number of seconds, 0 or more');
  }
  // Generated before the lock is taken: RSA key generation takes a noticeable time, and on the embedded database the
  // lock's transaction holds the one connection every request needs.
  const generated = await Promise.all(options.algs.map(generateSigningKey));
  return withSigningKeysLock(db, async (trx) => {
    const { cipher } = await prepareLocked(trx, options.secret, options.now);
    const activatesAt = addSeconds(options.now, options.activationDelaySeconds);
    const rotated: RotatedKey[] = [];
    for (const key of generated) {
      await insertSigningKey(trx, { ...key, privateJwk: cipher.seal(key.kid, key.privateJwk), createdAt: options.now, activatesAt });
      rotated.push({ kid: key.kid, alg: key.alg, activatesAt });
    }
    await options.record?.(trx, rotated);
    return rotated;
  });
}

export interface DescribedKey extends KeyTimes {
  state: KeyState;
  encrypted: boolean;
}

/** Every stored key with its state at `now`, in the order of SIGNING_ALGS, then of activation. */
export async function describeSigningKeys(db: Db, retentionSeconds: number, now: Date): Promise<DescribedKey[]> {
  const rows = await listSigningKeys(db);
  const encrypted = new Map(rows.map((r) => [r.kid, isEnvelope(r.private_jwk)]));
  const order = (alg: string) => (SIGNING_ALGS as readonly string[]).indexOf(alg);
  return keyTimeline(rows, retentionSeconds)
    .sort((a, b) => order(a.alg) - order(b.alg))
    .map((key) => ({ ...key, state: keyState(key, now), encrypted: encrypted.get(key.kid) ?? false }));
}
