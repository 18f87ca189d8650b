// Keeps a SAML connection's IdP metadata current when it came from a URL (issue 39): an IdP rolls its signing
// certificate by publishing the next one in its metadata first. Each connection whose metadata is older than
// REFRESH_AFTER_MS is read again through the guarded fetch; a document that cannot be read or does not serve leaves
// the stored one in place (logged), so that an IdP's outage never takes its connection's certificates away.
import type { ProviderContext } from '../../context.js';
import { rowToConnection, type Connection } from '../../connections/connection.js';
import { listConnectionRows, updateConnectionSaml } from '../../../storage/connections.js';
import { writeVersioned } from '../../../storage/json-shape.js';
import { fetchSamlMetadata } from '../metadata-fetch.js';
import { METADATA_MAX_BYTES } from './idp-metadata.js';
import { samlSettingsFrom } from './idp-metadata-source.js';
import { STORED_SAML_SETTINGS } from './saml-settings.js';
import { SamlError } from '../saml-error.js';

/** How old fetched metadata may get before it is read again. */
export const REFRESH_AFTER_MS = 6 * 3_600_000;

/** One round: every saml connection with a metadata URL and stale metadata, refreshed; how many were. */
export async function refreshSamlMetadata(ctx: Pick<ProviderContext, 'db' | 'clock' | 'config' | 'log' | 'outbound'>): Promise<number> {
  const now = ctx.clock();
  const due = (await listConnectionRows(ctx.db))
    .filter((row) => row.kind === 'saml')
    .map((row) => rowToConnection(row))
    .flatMap((r) => ('connection' in r ? [r.connection] : []))
    .filter((c): c is Connection & { saml: NonNullable<Connection['saml']> } => c.saml?.metadataUrl != null)
    .filter((c) => c.saml.metadataRefreshedAt === null || now.getTime() - Date.parse(c.saml.metadataRefreshedAt) >= REFRESH_AFTER_MS);
  let refreshed = 0;
  for (const connection of due) {
    const { saml } = connection;
    try {
      const xml = await fetchSamlMetadata({ config: ctx.config, outbound: ctx.outbound }, saml.metadataUrl!, METADATA_MAX_BYTES);
      const settings = samlSettingsFrom(xml, {
        metadataUrl: saml.metadataUrl,
        refreshedAt: now,
        allowUnsolicited: saml.allowUnsolicited,
        attributes: saml.attributes,
      });
      if (settings.idpEntityId !== saml.idpEntityId) throw new SamlError('bad_metadata', 'the refreshed metadata names another entityID');
      if (await updateConnectionSaml(ctx.db, connection.id, writeVersioned(settings, STORED_SAML_SETTINGS), settings.idpEntityId, now))
        refreshed += 1;
    } catch (err) {
      if (!(err instanceof SamlError)) throw err;
      ctx.log.warn({ connection: connection.id, detail: err.description }, 'saml metadata not refreshed; the stored metadata stays');
    }
  }
  return refreshed;
}
