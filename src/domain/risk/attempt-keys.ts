// The keys an attempt is logged under: the login as an HMAC under the device secret (a password typed into the
// username field is never stored, and a leaked log cannot be matched against a list of logins or guessed
// passwords without the secret) and the device's pseudonymous keys.
import { createHmac } from 'node:crypto';
import { isIP } from 'node:net';
import type { AttemptKeys } from '../../storage/risk.js';
import { plainAddress } from '../../net/ip-prefix.js';
import type { DeviceIdentity } from './device-identity.js';

export function normalisedLogin(login: string): string {
  return login.trim().toLowerCase();
}

export function attemptKeys(login: string, ip: string, device: DeviceIdentity, secret: Buffer): AttemptKeys {
  const address = plainAddress(ip);
  return {
    loginKey: createHmac('sha256', secret)
      .update(`login\u0000${normalisedLogin(login)}`)
      .digest('base64url'),
    deviceKey: device.deviceKey,
    fingerprintKey: device.fingerprint,
    networkKey: device.networkKey,
    login: normalisedLogin(login),
    ip: isIP(address) ? address : null,
    cookieHash: device.cookieHash,
  };
}
