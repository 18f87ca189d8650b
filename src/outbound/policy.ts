// Who may send the provider where. Destinations an operator configured (seeded or admin-made clients, the
// NOTIFIER webhook) are trusted as configured; those a client registered for itself (RFC 7591) are https and
// public addresses only, unless OUTBOUND_ALLOW_NETWORKS allows a network: a stranger must not make the provider
// POST to its own loopback, to the cloud metadata service at 169.254.169.254 or into the private network.
import type { Config } from '../config.js';
import { AllowedNetworks } from './address-ranges.js';
import type { OutboundPolicy } from './guarded-fetch.js';

/** `operator`: configured by whoever runs the provider; `self-registered`: chosen by a client over RFC 7591. */
export type DestinationOwner = 'operator' | 'self-registered';

export function policyFor(config: Pick<Config, 'issuer' | 'outbound'>, owner: DestinationOwner): OutboundPolicy {
  const strict = owner === 'self-registered';
  return {
    httpsOnly: strict,
    publicAddressesOnly: strict,
    allowed: new AllowedNetworks(config.outbound.allowNetworks),
    ownHost: new URL(config.issuer).hostname,
  };
}
