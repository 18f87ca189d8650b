// Failed client authentication counted per client and per network, in the database like the sign-in counters, so
// that every instance agrees. A secret that must be hashed and every client assertion are counted: a secret remembered
// as right is not.
import { TooManyRequests } from '../../errors/oauth-error.js';
import { claimAttempt, refundAttempt } from '../../storage/sign-in-throttle.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { networkPrefix } from '../../net/ip-prefix.js';
import { sha256 } from '../secrets.js';
import { lockRule, retryAfterSeconds } from '../accounts/sign-in-throttle.js';

export interface ClientAuthClaim {
  /** A right secret: the attempts are given back. */
  succeeded(): Promise<void>;
}

/**
 * RFC 6749 10.10 / 2.3.1: client secrets must not be guessable by repeated requests. Counts this attempt against the
 * network and the client BEFORE any hashing or signature check, in one round trip (the two statements are sent together); throws 429
 * temporarily_unavailable with Retry-After (RFC 6585 4) when either is locked. RFC 6749 5.2 has no error for a
 * throttled client; invalid_client would tell a client with the right secret that its secret is wrong.
 */
export async function claimClientAuthentication(ctx: ProviderContext, clientId: string, ip: string): Promise<ClientAuthClaim> {
  const settings = ctx.config.signInThrottle;
  const now = ctx.clock();
  const expiresAt = addSeconds(now, settings.windowSeconds);
  // A client is many callers (instances restarting together miss the remembered secret at once): it gets the
  // address's allowance, not one person's.
  const perClient = settings.ip ?? { ...settings.account, freeAttempts: 50 };
  const keys: Array<[string, ReturnType<typeof lockRule>]> = [[`client-auth-client:${sha256(clientId)}`, lockRule(perClient)]];
  if (settings.ip) keys.push([`client-auth-ip:${sha256(networkPrefix(ip, 32, 4))}`, lockRule(settings.ip)]);
  const counts = await Promise.all(keys.map(([key, rule]) => claimAttempt(ctx.db, { key, now, expiresAt, rule })));
  const locked = keys.find((_, i) => counts[i] === undefined);
  if (locked) {
    const claimed = keys.flatMap(([key], i) => (counts[i] === undefined ? [] : [refundAttempt(ctx.db, key, counts[i]!)]));
    const [seconds] = await Promise.all([retryAfterSeconds(ctx, locked[0], now), ...claimed]);
    throw new TooManyRequests('too many failed client authentications, try again later', seconds);
  }
  return {
    async succeeded() {
      await Promise.all(keys.map(([key], i) => refundAttempt(ctx.db, key, counts[i]!)));
    },
  };
}
