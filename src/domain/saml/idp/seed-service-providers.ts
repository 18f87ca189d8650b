// The seed file's `saml_service_providers`: SAML service providers from their metadata (inline `metadata_xml`), with
// the settings of `sso-admin saml-sps add`; each entry replaces the SP its metadata names, others are left alone.
import type { Db } from '../../../storage/database.js';
import { findGroupsByNames } from '../../../storage/groups.js';
import {
  findSamlServiceProviderRow,
  replaceSpAllowedGroups,
  upsertSamlServiceProviderRow,
} from '../../../storage/saml-service-providers.js';
import { readSpMetadata, spColumns, spEntryProblems, type SamlSpEntry } from './service-providers.js';

/** The section's entries, checked; each problem names its entry. */
export function checkSamlServiceProviders(raw: unknown, problems: string[]): SamlSpEntry[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) {
    problems.push('"saml_service_providers" must be an array');
    return undefined;
  }
  const ids: string[] = [];
  raw.forEach((entry, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`saml_service_providers[${i}]: must be an object`);
      return;
    }
    const found = spEntryProblems(entry as Record<string, unknown>);
    for (const problem of found) problems.push(`saml_service_providers[${i}]: ${problem}`);
    if (found.length === 0) ids.push(readSpMetadata((entry as SamlSpEntry).metadata_xml).entityId);
  });
  for (const id of new Set(ids.filter((id, i) => ids.indexOf(id) !== i))) problems.push(`service provider "${id}" appears more than once`);
  return raw as SamlSpEntry[];
}

/** Writes each entry; the names of groups no group has are returned as problems (nothing is written then). */
export async function seedSamlServiceProviders(
  db: Db,
  entries: readonly SamlSpEntry[],
  now: Date,
): Promise<{ counts: { created: number; updated: number; unchanged: number }; problems: string[] }> {
  const counts = { created: 0, updated: 0, unchanged: 0 };
  const problems: string[] = [];
  for (const entry of entries) {
    const columns = spColumns(entry);
    const groups = await findGroupsByNames(db, entry.allowed_groups ?? []);
    const found = new Set(groups.map((g) => g.name.toLowerCase()));
    const missing = (entry.allowed_groups ?? []).filter((n) => !found.has(n.toLowerCase()));
    if (missing.length > 0) {
      problems.push(`service provider "${columns.entity_id}": allowed_groups names no group "${missing.join('", "')}"`);
      continue;
    }
    const existed = (await findSamlServiceProviderRow(db, columns.entity_id)) !== undefined;
    await upsertSamlServiceProviderRow(db, columns, now);
    await replaceSpAllowedGroups(
      db,
      columns.entity_id,
      groups.map((g) => g.id),
    );
    if (existed) counts.updated += 1;
    else counts.created += 1;
  }
  return { counts, problems };
}
