// The seed file's `saml_service_providers`: SAML service providers from their metadata (inline `metadata_xml`, or
// only `metadata_url`, read from there through the guarded fetch when the file is applied, as a SAML connection's
// `saml_metadata_url` is), with the settings of `sso-admin saml-sps add`; each entry replaces the SP its metadata
// names, others are left alone.
import type { Db } from '../../../storage/database.js';
import { findGroupsByNames } from '../../../storage/groups.js';
import {
  findSamlServiceProviderRow,
  replaceSpAllowedGroups,
  upsertSamlServiceProviderRow,
} from '../../../storage/saml-service-providers.js';
import type { SamlMetadataFetching } from '../metadata-fetch.js';
import { SamlError } from '../saml-error.js';
import { readSpMetadata, spColumns, spEntryProblems, withSpMetadata, type SamlSpEntry, type SamlSpInput } from './service-providers.js';

/**
 * The section's entries, checked; each problem names its entry. An entry with only a metadata_url is checked for its
 * settings now, and for its metadata when the file is applied (seedSamlServiceProviders).
 */
export function checkSamlServiceProviders(raw: unknown, problems: string[]): SamlSpInput[] | undefined {
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
    const found = spEntryProblems(entry as Record<string, unknown>, 'inline-or-url');
    for (const problem of found) problems.push(`saml_service_providers[${i}]: ${problem}`);
    const xml = (entry as SamlSpInput).metadata_xml;
    if (found.length === 0 && xml !== undefined) ids.push(readSpMetadata(xml).entityId);
  });
  for (const id of new Set(ids.filter((id, i) => ids.indexOf(id) !== i))) problems.push(`service provider "${id}" appears more than once`);
  return raw as SamlSpInput[];
}

/**
 * Writes each entry, its metadata read from its URL first when the entry has none inline; what is wrong (a URL that
 * cannot be read or serves no SP metadata, groups no group has, one SP twice) is returned as problems, and the caller
 * then writes nothing. Without `fetching` (the configuration), a URL is fetched under the rule of a check without it.
 */
export async function seedSamlServiceProviders(
  db: Db,
  entries: readonly SamlSpInput[],
  now: Date,
  fetching: SamlMetadataFetching = { config: undefined, outbound: undefined },
): Promise<{ counts: { created: number; updated: number; unchanged: number }; problems: string[] }> {
  const counts = { created: 0, updated: 0, unchanged: 0 };
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [i, input] of entries.entries()) {
    const read = await readEntry(fetching, input);
    if ('problems' in read) {
      problems.push(...read.problems.map((p) => `saml_service_providers[${i}]: ${p}`));
      continue;
    }
    const { entry, fetched } = read;
    const columns = { ...spColumns(entry), metadata_refreshed_at: fetched ? now : null };
    if (seen.has(columns.entity_id)) {
      problems.push(`service provider "${columns.entity_id}" appears more than once`);
      continue;
    }
    seen.add(columns.entity_id);
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

/** The entry with its metadata (read from its URL when none is inline), checked as inline metadata is; or why not. */
async function readEntry(
  fetching: SamlMetadataFetching,
  input: SamlSpInput,
): Promise<{ entry: SamlSpEntry; fetched: boolean } | { problems: string[] }> {
  let read;
  try {
    read = await withSpMetadata(fetching, input as unknown as Record<string, unknown>);
  } catch (err) {
    if (err instanceof SamlError) return { problems: [err.description] };
    throw err;
  }
  const problems = spEntryProblems(read.entry);
  if (problems.length > 0) return { problems };
  return { entry: read.entry as unknown as SamlSpEntry, fetched: read.fetched };
}
