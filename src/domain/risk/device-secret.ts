// The key of the device fingerprints and network keys. Every instance must use the same one, or the same
// device would look new on each: DEVICE_SECRET when set, else one random secret made by the first instance
// and kept in the database.
import { randomBytes } from 'node:crypto';
import type { Config } from '../../config.js';
import type { Db } from '../../storage/database.js';
import { sharedSecret } from '../../storage/risk.js';
import type { Clock } from '../clock.js';

export async function loadDeviceSecret(db: Db, config: Config, clock: Clock): Promise<Buffer> {
  const secret =
    config.deviceSecret ?? (await sharedSecret(db, 'device-fingerprint', () => randomBytes(32).toString('base64url'), clock()));
  return Buffer.from(secret, 'utf8');
}
