// Private signing keys at rest: AES-256-GCM under a key derived with scrypt from KEYS_ENCRYPTION_SECRET and a
// salt stored once per database; each private JWK is stored as the envelope {v, iv, tag, ciphertext}.
import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';
import type { JWK } from 'jose';
import type { Db } from '../../storage/database.js';
import { ensureKeyEncryptionSalt } from '../../storage/key-encryption.js';
import type { SigningKeyRow } from '../../storage/schema.js';

export interface EncryptedJwk {
  v: 1;
  iv: string;
  tag: string;
  ciphertext: string;
}

/** The secret is missing, or is not the one the stored keys were encrypted with. Never carries the secret. */
export class KeyEncryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyEncryptionError';
  }
}

export interface KeyCipher {
  /** True when private keys are encrypted before they are stored. */
  readonly encrypts: boolean;
  /** What to store for a private JWK: its envelope, or the JWK itself without a secret. */
  seal(kid: string, jwk: JWK): Record<string, unknown>;
  /** The private JWK back from what was stored (clear or envelope); throws KeyEncryptionError. */
  open(kid: string, stored: Record<string, unknown>): JWK;
}

// OWASP Password Storage Cheat Sheet: scrypt N=2^17, r=8, p=1 for passwords; a 32-character secret needs less.
const KDF = 'scrypt:N=32768,r=8,p=1';
const SCRYPT = { N: 32_768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

export function isEnvelope(stored: Record<string, unknown>): boolean {
  return stored.v === 1 && typeof stored.iv === 'string' && typeof stored.tag === 'string' && typeof stored.ciphertext === 'string';
}

function deriveKey(secret: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, 32, SCRYPT, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

const MISSING = new KeyEncryptionError(
  'the signing keys in the database are encrypted: set KEYS_ENCRYPTION_SECRET to the secret they were encrypted with',
);
const WRONG = new KeyEncryptionError(
  'KEYS_ENCRYPTION_SECRET does not decrypt the signing keys in the database: it is not the secret they were encrypted with',
);

const clearCipher: KeyCipher = {
  encrypts: false,
  seal: (_kid, jwk) => ({ ...jwk }),
  open(_kid, stored) {
    if (isEnvelope(stored)) throw MISSING;
    return stored as JWK;
  },
};

/** AES-256-GCM with a fresh 96-bit IV per key; the kid is authenticated data, so envelopes cannot be swapped. */
function aesCipher(key: Buffer): KeyCipher {
  return {
    encrypts: true,
    seal(kid, jwk) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(kid, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(JSON.stringify(jwk), 'utf8'), cipher.final()]);
      const envelope: EncryptedJwk = {
        v: 1,
        iv: iv.toString('base64url'),
        tag: cipher.getAuthTag().toString('base64url'),
        ciphertext: ciphertext.toString('base64url'),
      };
      return { ...envelope };
    },
    open(kid, stored) {
      if (!isEnvelope(stored)) return stored as JWK;
      const envelope = stored as unknown as EncryptedJwk;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(envelope.iv, 'base64url'))
          .setAAD(Buffer.from(kid, 'utf8'))
          .setAuthTag(Buffer.from(envelope.tag, 'base64url'));
        const clear = Buffer.concat([decipher.update(Buffer.from(envelope.ciphertext, 'base64url')), decipher.final()]);
        return JSON.parse(clear.toString('utf8')) as JWK;
      } catch {
        throw WRONG;
      }
    },
  };
}

/**
 * The cipher for this database and secret. Checked before anything is written with it: without a secret, no
 * stored key may be encrypted; with one, it must open a stored envelope (when there is one), so that a wrong
 * secret stops the process instead of adding keys no other instance can read.
 */
export async function openKeyCipher(db: Db, secret: string | undefined, rows: readonly SigningKeyRow[], now: Date): Promise<KeyCipher> {
  const sample = rows.find((r) => isEnvelope(r.private_jwk));
  if (secret === undefined) {
    if (sample) throw MISSING;
    return clearCipher;
  }
  const cipher = aesCipher(await keyEncryptionKey(db, secret, now));
  if (sample) cipher.open(sample.kid, sample.private_jwk);
  return cipher;
}

/**
 * The 256-bit key derived from KEYS_ENCRYPTION_SECRET and this database's salt (stored on first use). Other
 * secrets kept at rest (src/domain/accounts/totp-secrets.ts) derive their own keys from it rather than sharing it.
 */
export async function keyEncryptionKey(db: Db, secret: string, now: Date): Promise<Buffer> {
  const stored = await ensureKeyEncryptionSalt(db, { kdf: KDF, salt: randomBytes(16).toString('base64url'), createdAt: now });
  if (stored.kdf !== KDF) throw new KeyEncryptionError(`unknown key derivation "${stored.kdf}" in table key_encryption`);
  return deriveKey(secret, Buffer.from(stored.salt, 'base64url'));
}
