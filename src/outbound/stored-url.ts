// The one check of a URL before it is stored for the provider to request later (registration, the management API,
// the console, sso-admin, the seed file: clients' jwks_uri, backchannel_logout_uri and sector_identifier_uri,
// webhooks, upstream connections): what guardedFetch would refuse, told from the URL's text alone, at once.
import { isLoopbackUrl } from '../net/loopback.js';
import { AllowedNetworks, refusedHostLiteral } from './address-ranges.js';
import type { OutboundPolicy } from './guarded-fetch.js';

export interface StoredUrlOptions {
  /**
   * localhost, 127.0.0.1 and [::1] are accepted whatever the address rule: a development setup whose issuer is on
   * loopback, or a check that runs before the configuration is known (the seed file).
   */
  readonly loopbackHosts?: boolean;
}

/**
 * The rule of a check that runs without the configuration (the seed file's entries, a command line checked before the
 * database opens): public addresses only, no network allowed, loopback hosts accepted. The check with the
 * configuration runs again where there is one (the management API, sso-admin), and guardedFetch at every request.
 */
export const WITHOUT_CONFIGURATION: { policy: OutboundPolicy; options: StoredUrlOptions } = Object.freeze({
  policy: Object.freeze({ httpsOnly: false, publicAddressesOnly: true, allowed: new AllowedNetworks([]), ownHost: '' }),
  options: Object.freeze({ loopbackHosts: true }),
});

/**
 * Why `raw` must not be stored as a URL to be requested under `policy`, or undefined. The reason follows the field's
 * name ("jwks_uri must use https"). An address literal is judged by refusedRange, so every spelling WHATWG URL
 * parsing accepts (0x7f.1, 2130706433, 0177.0.0.1, 127.1, [::ffff:7f00:1], [64:ff9b::a9fe:a9fe]) meets the same
 * table as the resolved addresses do at the request; an IPv6 zone id ([fe80::1%25eth0]) is no valid URL host at all.
 */
export function storedUrlProblem(raw: unknown, policy: OutboundPolicy, options: StoredUrlOptions = {}): string | undefined {
  if (typeof raw !== 'string' || !URL.canParse(raw)) return 'must be an absolute URL';
  const url = new URL(raw);
  if (url.protocol !== 'https:' && (url.protocol !== 'http:' || policy.httpsOnly))
    return policy.httpsOnly ? 'must use https' : 'must use http or https';
  if (url.username || url.password) return 'must not carry credentials';
  // A fragment is never sent (RFC 3986 3.5): one in a URL that is requested is a mistake.
  if (raw.includes('#')) return 'must not have a fragment';
  if (options.loopbackHosts && isLoopbackUrl(url)) return undefined;
  if (!policy.publicAddressesOnly) return undefined;
  const why = refusedHostLiteral(url.hostname, policy.allowed);
  return why && `must not point to this machine or a private network (its host ${why})`;
}
