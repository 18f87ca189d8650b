// The keys an attempt is logged under: the login as a digest (a password typed into the username field is
// never stored) and the device's pseudonymous keys.
import { isIP } from 'node:net';
import type { AttemptKeys } from '../../storage/risk.js';
import { plainAddress } from '../ip-prefix.js';
import { sha256 } from '../secrets.js';
import type { DeviceIdentity } from './device-identity.js';

export function normalisedLogin(login: string): string {
  return login.trim().toLowerCase();
}

export function attemptKeys(login: string, ip: string, device: DeviceIdentity): AttemptKeys {
  const address = plainAddress(ip);
  return {
    loginKey: sha256(`login:${normalisedLogin(login)}`),
    deviceKey: device.deviceKey,
    fingerprintKey: device.fingerprint,
    networkKey: device.networkKey,
    login: normalisedLogin(login),
    ip: isIP(address) ? address : null,
    cookieHash: device.cookieHash,
  };
}
