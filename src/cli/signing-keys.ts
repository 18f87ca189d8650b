// The signing keys as the command line shows and rotates them (`sso-admin keys`).
import type { DescribedKey, RotatedKey } from '../domain/keys/key-rotation.js';
import { SIGNING_ALGS, isSigningAlg, type SigningAlg } from '../domain/keys/signing-algs.js';
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

export const rotationLine = (key: RotatedKey, delay: number) =>
  `${key.alg} key ${key.kid} added: published now, signs from ${iso(key.activatesAt)} (in ${delay} s)`;

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

/** The key as JSON, as the management API answers it too. */
export { keyJson } from '../domain/admin/representations.js';
