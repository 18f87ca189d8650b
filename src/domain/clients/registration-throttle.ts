// Open registration counted per client address (IPv6: per /64), in the database like the sign-in counters, so
// that one address cannot fill the clients table: after REGISTRATION_IP_FREE_ATTEMPTS the address waits, longer
// each time (SIGN_IN_LOCK_*), and the counter is forgotten a window after its last registration. Keycloak limits
// anonymous registration by policy (trusted hosts, a maximum number of clients); this is the per-address part.
import { TooManyRequests } from '../../errors/oauth-error.js';
import { claimAttempt } from '../../storage/sign-in-throttle.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { networkPrefix } from '../../net/ip-prefix.js';
import { sha256 } from '../secrets.js';
import { lockRule, retryAfterSeconds } from '../accounts/sign-in-throttle.js';

/** The address counter's key: a digest, like every throttle key, so no address is stored. */
export function registrationAddressKey(ip: string): string {
  return `registration-ip:${sha256(networkPrefix(ip, 32, 4))}`;
}

/** Counts an open registration against the address; throws 429 while the address is locked. */
export async function claimOpenRegistration(ctx: ProviderContext, ip: string): Promise<void> {
  const policy = ctx.config.registration.addressThrottle;
  if (!ctx.config.registration.open || policy === null) return;
  const key = registrationAddressKey(ip);
  const now = ctx.clock();
  const count = await claimAttempt(ctx.db, {
    key,
    now,
    expiresAt: addSeconds(now, ctx.config.signInThrottle.windowSeconds),
    rule: lockRule(policy),
  });
  if (count !== undefined) return;
  const seconds = await retryAfterSeconds(ctx, key, now);
  throw new TooManyRequests(`too many registrations from this address; try again in ${seconds} s`, seconds);
}
