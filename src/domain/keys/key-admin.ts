// Rotating the signing keys by hand (`sso-admin keys rotate`, POST /admin/api/v1/signing-keys/rotate): the rotation
// of key-rotation.ts with its audit record in the same transaction, and what the operator should be warned of.
import { logAdminAction, type AdminContext } from '../admin/admin.js';
import { isoTime } from '../admin/representations.js';
import { describeSigningKeys, rotateSigningKeys, type DescribedKey, type RotatedKey } from './key-rotation.js';
import { JWKS_MAX_AGE_SECONDS, keyRetentionSeconds } from './keys.js';
import type { SigningAlg } from './signing-algs.js';

export interface Rotation {
  rotated: RotatedKey[];
  delay: number;
  /** What the operator should know: keys in the clear, a delay too short for the caches. */
  warnings: string[];
}

/** Adds a key for each algorithm, activating after `delay` seconds (default KEY_ACTIVATION_DELAY_SECONDS). */
export async function rotateKeys(
  ctx: AdminContext,
  algs: readonly SigningAlg[],
  delay = ctx.config.keyActivationDelaySeconds,
): Promise<Rotation> {
  const { config } = ctx;
  const rotated = await rotateSigningKeys(ctx.db, {
    secret: config.keysEncryptionSecret,
    algs,
    activationDelaySeconds: delay,
    now: ctx.clock(),
    record: async (trx, keys) => {
      for (const key of keys)
        await logAdminAction(ctx, trx, {
          event: 'admin.key.rotated',
          target: { type: 'signing_key', id: key.kid },
          changes: { alg: key.alg, activates_at: isoTime(key.activatesAt) },
          log: { kid: key.kid, alg: key.alg, activatesAt: isoTime(key.activatesAt) },
        });
    },
  });
  const warnings: string[] = [];
  if (config.keysEncryptionSecret === undefined)
    warnings.push('KEYS_ENCRYPTION_SECRET is not set: the private keys are stored in the clear');
  if (delay < config.keysRefreshSeconds + JWKS_MAX_AGE_SECONDS) {
    warnings.push(
      `a delay under ${config.keysRefreshSeconds + JWKS_MAX_AGE_SECONDS} s (KEYS_REFRESH_SECONDS + the JWKS max-age) lets the new key sign before every instance and relying party has it`,
    );
  }
  return { rotated, delay, warnings };
}

/** Every stored key with its state now. */
export function listKeys(ctx: Pick<AdminContext, 'db' | 'config' | 'clock'>): Promise<DescribedKey[]> {
  return describeSigningKeys(ctx.db, keyRetentionSeconds(ctx.config), ctx.clock());
}
