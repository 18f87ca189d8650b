// Where a webhook may be sent: checked against SSRF as a client's jwks_uri is (src/domain/clients/client-jwks.ts):
// https, plain http only on loopback while the issuer itself is http on loopback; at delivery the resolved addresses
// must be public unless the issuer is on loopback (a development setup) or OUTBOUND_ALLOW_NETWORKS allows them. At
// creation an address literal of a private, link-local or other special range is refused at once (RFC 6890), unless
// it is loopback on a loopback issuer: a subscription must not make the provider POST into its own network.
import type { Config } from '../../config.js';
import type { OutboundPolicy } from '../../outbound/guarded-fetch.js';
import { jwksUriPolicy, jwksUriRuleProblem } from '../clients/client-jwks.js';

/** Why `raw` cannot be a webhook URL, or undefined. */
export function webhookUrlProblem(config: Pick<Config, 'issuer' | 'outbound'>, raw: string): string | undefined {
  if (!URL.canParse(raw)) return 'the URL is not absolute';
  const why = jwksUriRuleProblem(config, raw);
  return why && `the URL ${why}`;
}

/** The policy a delivery to `url` goes out under (guardedFetch checks every resolved address against it). */
export function webhookPolicy(config: Pick<Config, 'issuer' | 'outbound'>, url: string): OutboundPolicy | string {
  if (!URL.canParse(url)) return 'the URL is not absolute';
  return jwksUriPolicy(config, new URL(url));
}
