// Keeps a service provider's metadata current when it was registered from a URL (issue 39): an SP rolls its
// certificates or moves its ACS by publishing new metadata. Each SP whose metadata is older than REFRESH_AFTER_MS (as
// for SAML connections) is read again through the guarded fetch; a document that cannot be read, does not serve, or
// names another entityID leaves the stored one in place (logged), so an SP's outage never takes its settings away.
import { listSamlServiceProviderRows, updateSamlSpMetadata } from '../../../storage/saml-service-providers.js';
import type { ProviderContext } from '../../context.js';
import { fetchSamlMetadata } from '../metadata-fetch.js';
import { SamlError } from '../saml-error.js';
import { REFRESH_AFTER_MS } from '../sp/metadata-refresh.js';
import { readSpMetadata } from './service-providers.js';

/** One round: every SP with a metadata URL and stale metadata, refreshed; how many were. */
export async function refreshServiceProviderMetadata(
  ctx: Pick<ProviderContext, 'db' | 'clock' | 'config' | 'log' | 'outbound'>,
): Promise<number> {
  const now = ctx.clock();
  const due = (await listSamlServiceProviderRows(ctx.db)).filter(
    (row) =>
      row.metadata_url !== null &&
      (row.metadata_refreshed_at === null || now.getTime() - row.metadata_refreshed_at.getTime() >= REFRESH_AFTER_MS),
  );
  let refreshed = 0;
  for (const row of due) {
    try {
      const xml = await fetchSamlMetadata({ config: ctx.config, outbound: ctx.outbound }, row.metadata_url!);
      if (readSpMetadata(xml).entityId !== row.entity_id)
        throw new SamlError('bad_metadata', 'the refreshed metadata names another entityID');
      if (await updateSamlSpMetadata(ctx.db, row.entity_id, xml, now)) refreshed += 1;
    } catch (err) {
      if (!(err instanceof SamlError)) throw err;
      ctx.log.warn({ sp: row.entity_id, detail: err.description }, 'saml sp metadata not refreshed; the stored metadata stays');
    }
  }
  return refreshed;
}
