// Device authorization requests counted per client address and per client, in the database like the user-code
// counter (user-code-throttle.ts), before a device code is stored: one loop cannot fill the table.
import type { ThrottlePolicy } from '../../config.js';
import type { ProviderContext } from '../context.js';
import { networkPrefix } from '../../net/ip-prefix.js';
import { sha256 } from '../secrets.js';
import { claimRequestCounters } from '../network-counter.js';

/** The address counter's key; an IPv6 client counts per /64, like the sign-in address counter. */
export function deviceAuthorizationNetworkKey(ip: string): string {
  return `device-authorization-ip:${sha256(networkPrefix(ip, 32, 4))}`;
}

export function deviceAuthorizationClientKey(clientId: string): string {
  return `device-authorization-client:${sha256(clientId)}`;
}

/**
 * RFC 8628 5.2 (brute forcing) and RFC 6749 10.10: each request stores a device code, so requests are bounded per
 * network and per client. RFC 8628 3.2 defines no error for this (slow_down is for polling, 3.5), so the answer is
 * what open registration gives: 429 with Retry-After (RFC 6585 4) and temporarily_unavailable.
 */
export async function claimDeviceAuthorization(ctx: ProviderContext, clientId: string, ip: string): Promise<void> {
  const { perNetwork, perClient } = ctx.config.deviceFlow.authorizationRequests;
  const counters: Array<[string, ThrottlePolicy | null]> = [
    [deviceAuthorizationNetworkKey(ip), perNetwork],
    [deviceAuthorizationClientKey(clientId), perClient],
  ];
  await claimRequestCounters(ctx, counters, 'too many device authorization requests, try again later');
}
