// Authenticator secrets at rest: AES-256-GCM under a key of their own, derived with HKDF-SHA-256 from the
// key-encryption key of KEYS_ENCRYPTION_SECRET (src/domain/keys/key-encryption.ts), a fresh IV per secret and the
// user id as authenticated data, so that an envelope moved to another user's row does not open. Without
// KEYS_ENCRYPTION_SECRET they are kept in the clear, like the private signing keys, and the start log says so
// (src/domain/keys/keys.ts); a clear secret still opens once the secret is set, and new ones are then encrypted.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { ProviderContext } from '../context.js';
import { isEnvelope, KeyEncryptionError, keyEncryptionKey, type EncryptedJwk } from '../keys/key-encryption.js';

/** An encrypted envelope, or (without KEYS_ENCRYPTION_SECRET) the secret in the clear. */
export type StoredSecret = EncryptedJwk | { v: 0; clear: string };

const HKDF_INFO = 'sso-provider totp secret v1';

/** The derived key per provider context: scrypt runs once per process, at the first use, not at start. */
const keys = new WeakMap<ProviderContext, Promise<Buffer>>();

function totpKey(ctx: ProviderContext): Promise<Buffer> {
  const secret = ctx.config.keysEncryptionSecret;
  if (secret === undefined) return Promise.reject(new KeyEncryptionError('authenticator apps need KEYS_ENCRYPTION_SECRET'));
  let key = keys.get(ctx);
  if (!key) {
    key = keyEncryptionKey(ctx.db, secret, ctx.clock()).then((kek) => Buffer.from(hkdfSync('sha256', kek, Buffer.alloc(0), HKDF_INFO, 32)));
    keys.set(ctx, key);
    // A failed derivation (the database was away) is tried again next time rather than remembered.
    key.catch(() => keys.delete(ctx));
  }
  return key;
}

const aad = (userId: string) => Buffer.from(`totp\u0000${userId}`, 'utf8');

export async function sealTotpSecret(ctx: ProviderContext, userId: string, secret: Buffer): Promise<StoredSecret> {
  if (ctx.config.keysEncryptionSecret === undefined) return { v: 0, clear: secret.toString('base64url') };
  const key = await totpKey(ctx);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(aad(userId));
  const ciphertext = Buffer.concat([cipher.update(secret), cipher.final()]);
  return {
    v: 1,
    iv: iv.toString('base64url'),
    tag: cipher.getAuthTag().toString('base64url'),
    ciphertext: ciphertext.toString('base64url'),
  };
}

/** The secret back; throws KeyEncryptionError (never the secret) when it does not open. */
export async function openTotpSecret(ctx: ProviderContext, userId: string, stored: Record<string, unknown>): Promise<Buffer> {
  if (stored.v === 0 && typeof stored.clear === 'string') return Buffer.from(stored.clear, 'base64url');
  if (!isEnvelope(stored)) throw new KeyEncryptionError('an authenticator secret is neither an encrypted envelope nor a clear secret');
  const envelope = stored as unknown as EncryptedJwk;
  const key = await totpKey(ctx);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(envelope.iv, 'base64url'))
      .setAAD(aad(userId))
      .setAuthTag(Buffer.from(envelope.tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(envelope.ciphertext, 'base64url')), decipher.final()]);
  } catch {
    throw new KeyEncryptionError(
      'KEYS_ENCRYPTION_SECRET does not decrypt an authenticator secret: it is not the secret it was encrypted with',
    );
  }
}
