// The signing keys as the command line shows and rotates them (`sso-admin keys`).
import type { Config } from '../config.js';
import { logAdminAction } from '../domain/admin/admin.js';
import type { EventLog } from '../domain/context.js';
import { describeSigningKeys, rotateSigningKeys, type DescribedKey, type RotatedKey } from '../domain/keys/key-rotation.js';
import { JWKS_MAX_AGE_SECONDS, keyRetentionSeconds } from '../domain/keys/keys.js';
import { SIGNING_ALGS, isSigningAlg, type SigningAlg } from '../domain/keys/signing-algs.js';
import type { Db } from '../storage/database.js';
import { UsageError } from './command.js';
import { iso } from './output.js';

/** Every algorithm when none is named; the named ones, each once. */
export function checkAlgs(algs: readonly string[] | undefined): SigningAlg[] {
  for (const alg of algs ?? [])
    if (!isSigningAlg(alg)) throw new UsageError(`--alg must be one of ${SIGNING_ALGS.join(', ')} (got "${alg}")`);
  return [...new Set(algs ?? SIGNING_ALGS)] as SigningAlg[];
}

/** The activation delay given on the command line, or undefined for KEY_ACTIVATION_DELAY_SECONDS. */
export function checkDelay(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new UsageError(`--delay must be a whole number of seconds (got "${text}")`);
  return Number(text);
}

export interface Rotation {
  rotated: RotatedKey[];
  delay: number;
  /** What the operator should know: keys in the clear, a delay too short for the caches. */
  warnings: string[];
}

/** Adds a key for each algorithm, activating after `delay` seconds (default KEY_ACTIVATION_DELAY_SECONDS). */
export async function rotateKeys(
  db: Db,
  config: Config,
  log: EventLog,
  algs: readonly SigningAlg[],
  delay = config.keyActivationDelaySeconds,
): Promise<Rotation> {
  const rotated = await rotateSigningKeys(db, {
    secret: config.keysEncryptionSecret,
    algs,
    activationDelaySeconds: delay,
    now: new Date(),
  });
  for (const key of rotated)
    logAdminAction({ log }, 'admin.key.rotated', { kid: key.kid, alg: key.alg, activatesAt: iso(key.activatesAt) });
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

export const rotationLine = (key: RotatedKey, delay: number) =>
  `${key.alg} key ${key.kid} added: published now, signs from ${iso(key.activatesAt)} (in ${delay} s)`;

export function listKeys(db: Db, config: Config): Promise<DescribedKey[]> {
  return describeSigningKeys(db, keyRetentionSeconds(config), new Date());
}

export const KEY_TABLE_HEADER = ['kid', 'alg', 'state', 'created', 'activates', 'retires', 'leaves jwks', 'at rest'];

export const keyTableRow = (k: DescribedKey) => [
  k.kid,
  k.alg,
  k.state,
  iso(k.createdAt),
  iso(k.activatesAt),
  iso(k.retiresAt),
  iso(k.unpublishesAt),
  k.encrypted ? 'encrypted' : 'clear',
];

export const keyJson = (k: DescribedKey) => ({
  kid: k.kid,
  alg: k.alg,
  state: k.state,
  created_at: iso(k.createdAt),
  activates_at: iso(k.activatesAt),
  retires_at: k.retiresAt && iso(k.retiresAt),
  leaves_jwks_at: k.unpublishesAt && iso(k.unpublishesAt),
  encrypted: k.encrypted,
});
