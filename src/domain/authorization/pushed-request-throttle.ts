// Pushed authorization requests counted per client address and per client, in the database like the device
// authorization counters (src/domain/device-flow/device-authorization-throttle.ts), before a request object is
// verified (a jwks_uri may be fetched) or a request stored: one loop cannot fill the table.
import type { ThrottlePolicy } from '../../config.js';
import type { ProviderContext } from '../context.js';
import { networkPrefix } from '../../net/ip-prefix.js';
import { sha256 } from '../secrets.js';
import { claimRequestCounters } from '../network-counter.js';

/**
 * RFC 9126 2.3: "429 Too Many Requests: If the number of requests from a client during a particular time period
 * exceeds the number the authorization server allows." Answered like the other floods: temporarily_unavailable
 * with Retry-After (RFC 6585 4). An IPv6 client counts per /64.
 */
export async function claimPushedRequest(ctx: ProviderContext, clientId: string, ip: string): Promise<void> {
  const { perNetwork, perClient } = ctx.config.pushedRequests.requests;
  const counters: Array<[string, ThrottlePolicy | null]> = [
    [`par-ip:${sha256(networkPrefix(ip, 32, 4))}`, perNetwork],
    [`par-client:${sha256(clientId)}`, perClient],
  ];
  await claimRequestCounters(ctx, counters, 'too many pushed authorization requests, try again later');
}
