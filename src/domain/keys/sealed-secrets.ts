// Secrets that must be read back (an authenticator app's TOTP secret, a client_secret_jwt client's HMAC key) at rest:
// AES-256-GCM under a key of each purpose's own, derived with HKDF-SHA-256 from the key-encryption key of
// KEYS_ENCRYPTION_SECRET (src/domain/keys/key-encryption.ts), a fresh IV per secret and the owner (user or client)
// as authenticated data, so that an envelope moved to another row does not open. Without KEYS_ENCRYPTION_SECRET they
// are kept in the clear and marked so, like the private signing keys, and the start log says so
// (src/domain/keys/keys.ts); a clear secret still opens once the secret is set, and new ones are then encrypted.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Config } from '../../config.js';
import type { Db } from '../../storage/database.js';
import type { Clock } from '../clock.js';
import { readSealedSecret, type SealedSecret } from '../../storage/sealed-secret.js';
import { KeyEncryptionError, keyEncryptionKey } from './key-encryption.js';

/** An encrypted envelope, or (without KEYS_ENCRYPTION_SECRET) the secret in the clear (SEALED_SECRET's versions). */
export type StoredSecret = SealedSecret;

/** What sealing needs: the database (its salt), the secret, the clock. A ProviderContext is one. */
export interface SealingContext {
  readonly db: Db;
  readonly clock: Clock;
  readonly config: Pick<Config, 'keysEncryptionSecret'>;
}

/** What a sealed secret is for: each purpose has a key of its own, and names itself in the authenticated data. */
export type SealPurpose =
  | 'totp'
  | 'client-secret'
  | 'directory-bind'
  | 'connection-secret'
  | 'upstream-verifier'
  | 'upstream-tokens'
  | 'webhook-secret'
  | 'saml-key';

const HKDF_INFO: Record<SealPurpose, string> = {
  totp: 'sso-provider totp secret v1',
  'client-secret': 'sso-provider client secret v1',
  'directory-bind': 'sso-provider directory bind password v1',
  'connection-secret': 'sso-provider connection secret v1',
  'upstream-verifier': 'sso-provider upstream pkce verifier v1',
  'upstream-tokens': 'sso-provider upstream tokens v1',
  'webhook-secret': 'sso-provider webhook secret v1',
  'saml-key': 'sso-provider saml private key v1',
};

const WHAT: Record<SealPurpose, string> = {
  totp: 'an authenticator secret',
  'client-secret': 'a client secret',
  'directory-bind': "a directory's bind password",
  'connection-secret': "an upstream connection's client secret",
  'upstream-verifier': 'an upstream sign-in',
  'upstream-tokens': "an upstream account's tokens",
  'webhook-secret': "a webhook subscription's secret",
  'saml-key': 'a SAML signing key',
};

/** The derived keys per context: scrypt runs once per process and purpose, at the first use, not at start. */
const keys = new WeakMap<SealingContext, Map<SealPurpose, Promise<Buffer>>>();

function purposeKey(ctx: SealingContext, purpose: SealPurpose): Promise<Buffer> {
  const secret = ctx.config.keysEncryptionSecret;
  if (secret === undefined) return Promise.reject(new KeyEncryptionError(`${WHAT[purpose]} is encrypted: set KEYS_ENCRYPTION_SECRET`));
  let perPurpose = keys.get(ctx);
  if (!perPurpose) keys.set(ctx, (perPurpose = new Map()));
  let key = perPurpose.get(purpose);
  if (!key) {
    key = keyEncryptionKey(ctx.db, secret, ctx.clock()).then((kek) =>
      Buffer.from(hkdfSync('sha256', kek, Buffer.alloc(0), HKDF_INFO[purpose], 32)),
    );
    perPurpose.set(purpose, key);
    // A failed derivation (the database was away) is tried again next time rather than remembered.
    key.catch(() => perPurpose.delete(purpose));
  }
  return key;
}

const aad = (purpose: SealPurpose, owner: string) => Buffer.from(`${purpose}\u0000${owner}`, 'utf8');

export async function sealSecret(ctx: SealingContext, purpose: SealPurpose, owner: string, secret: Buffer): Promise<StoredSecret> {
  if (ctx.config.keysEncryptionSecret === undefined) return { v: 0, clear: secret.toString('base64url') };
  const key = await purposeKey(ctx, purpose);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(aad(purpose, owner));
  const ciphertext = Buffer.concat([cipher.update(secret), cipher.final()]);
  return {
    v: 1,
    iv: iv.toString('base64url'),
    tag: cipher.getAuthTag().toString('base64url'),
    ciphertext: ciphertext.toString('base64url'),
  };
}

/**
 * The secret back; throws KeyEncryptionError (never the secret) when it does not open. The column's value is read
 * through SEALED_SECRET first (src/storage/sealed-secret.ts): one of a version or shape this code does not know is
 * refused the same way, naming the path that did not fit, and each caller's refusal of a secret that does not open
 * applies (a TOTP code refused, a client assertion refused, a delivery held back, a directory not reached).
 */
export async function openSecret(ctx: SealingContext, purpose: SealPurpose, owner: string, stored: unknown): Promise<Buffer> {
  const read = readSealedSecret(stored);
  if (!read.ok) throw new KeyEncryptionError(`${WHAT[purpose]} is stored in a shape this version does not read (${read.reason})`);
  const envelope = read.value;
  if (envelope.v === 0) return Buffer.from(envelope.clear, 'base64url');
  const key = await purposeKey(ctx, purpose);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(envelope.iv, 'base64url'))
      .setAAD(aad(purpose, owner))
      .setAuthTag(Buffer.from(envelope.tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(envelope.ciphertext, 'base64url')), decipher.final()]);
  } catch {
    throw new KeyEncryptionError(`KEYS_ENCRYPTION_SECRET does not decrypt ${WHAT[purpose]}: it is not the secret it was encrypted with`);
  }
}
