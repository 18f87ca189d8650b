// Open registration counted per client address (IPv6: per /64), in the database like the sign-in counters, so
// that one address cannot fill the clients table: after REGISTRATION_IP_FREE_ATTEMPTS the address waits, longer
// each time (SIGN_IN_LOCK_*), and the counter is forgotten a window after its last registration. Keycloak limits
// anonymous registration by policy (trusted hosts, a maximum number of clients); this is the per-address part.
import { TooManyRequests } from '../../errors/oauth-error.js';
import type { ProviderContext } from '../context.js';
import { claimNetworkCounter, networkCounterKey } from '../network-counter.js';

/** The address counter's key: a digest, like every throttle key, so no address is stored. */
export function registrationAddressKey(ip: string): string {
  return networkCounterKey('registration-ip', ip);
}

/** Counts an open registration against the address; throws 429 while the address is locked. */
export async function claimOpenRegistration(ctx: ProviderContext, ip: string): Promise<void> {
  if (!ctx.config.registration.open) return;
  const claim = await claimNetworkCounter(ctx, 'registration-ip', ip, ctx.config.registration.addressThrottle);
  if (claim.kind === 'claimed') return;
  const seconds = claim.retryAfterSeconds;
  throw new TooManyRequests(`too many registrations from this address; try again in ${seconds} s`, seconds);
}
