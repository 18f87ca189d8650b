// Refreshes SAML connections' IdP metadata (src/domain/saml/sp/metadata-refresh.ts) and service providers' metadata
// (src/domain/saml/idp/sp-metadata-refresh.ts) from their URLs in this instance:
// a first round a minute after start, then every INTERVAL_MS; a failed round is logged and the next comes all the
// same. Every instance may run it: a refresh writes the same document, whichever instance reads it.
import type { ProviderContext } from '../domain/context.js';
import { refreshSamlMetadata } from '../domain/saml/sp/metadata-refresh.js';
import { refreshServiceProviderMetadata } from '../domain/saml/idp/sp-metadata-refresh.js';

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
  let stopped = false;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = refreshRound(ctx)
        .then(
          () => undefined,
          (err: unknown) => ctx.log.warn({ err: (err as Error).message }, 'saml metadata refresh round failed'),
        )
        .finally(() => {
          running = undefined;
          schedule(INTERVAL_MS);
        });
    }, ms);
    timer.unref();
  };
  schedule(FIRST_ROUND_MS);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
