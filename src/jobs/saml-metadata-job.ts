// Refreshes SAML connections' IdP metadata (src/domain/saml/sp/metadata-refresh.ts) and service providers' metadata
// (src/domain/saml/idp/sp-metadata-refresh.ts) from their URLs in this instance:
// a first round a minute after start, then every INTERVAL_MS (polling-job.ts); a failed round is logged and the next comes all the
// same. Every instance may run it: a refresh writes the same document, whichever instance reads it.
import type { ProviderContext } from '../domain/context.js';
import { refreshSamlMetadata } from '../domain/saml/sp/metadata-refresh.js';
import { refreshServiceProviderMetadata } from '../domain/saml/idp/sp-metadata-refresh.js';
import { startPollingJob } from './polling-job.js';

/** One round: connections, then service providers; one failing does not keep the other from its round. */
async function refreshRound(ctx: ProviderContext): Promise<void> {
  const results = await Promise.allSettled([refreshSamlMetadata(ctx), refreshServiceProviderMetadata(ctx)]);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

const FIRST_ROUND_MS = 60_000;
const INTERVAL_MS = 15 * 60_000;

export interface SamlMetadataJob {
  stop(): Promise<void>;
}

export function startSamlMetadataJob(ctx: ProviderContext): SamlMetadataJob {
  return startPollingJob(ctx, {
    name: 'saml metadata refresh',
    intervalMs: INTERVAL_MS,
    firstRoundMs: FIRST_ROUND_MS,
    round: () => refreshRound(ctx),
  });
}
