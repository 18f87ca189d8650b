// Seeding clients, users and admin risk rules from an admin's JSON file: validated as a whole, applied in one
// transaction, idempotent (an unchanged entry is not written), secrets and passwords hashed. A client or user entry
// is the format every administering surface shares (src/domain/client-entry.ts, src/domain/user-entry.ts).
import { randomUUID } from 'node:crypto';
import { insertClient, findClient, updateClient } from '../../storage/clients.js';
import type { Db } from '../../storage/database.js';
import { findUserByUsername, insertUser, updateUser } from '../../storage/users.js';
import type { PasswordHasher } from '../accounts/passwords.js';
import { addRiskRule, parseRiskRule, riskRules, type RiskRule } from '../risk/rules.js';
import { PasswordPolicy } from '../accounts/password-policy.js';
import { readSealedSecret } from '../../storage/sealed-secret.js';
import { openSecret, sealSecret, type SealingContext, type StoredSecret } from '../keys/sealed-secrets.js';
import { KeyEncryptionError } from '../keys/key-encryption.js';
import type { ClientRow } from '../../storage/schema.js';
import { findResourceServers, upsertResourceServer } from '../../storage/resource-servers.js';
import { resourceServerColumns, resourceServerProblems, type ResourceServerEntry } from '../resources/resource-servers.js';
import type { DirectoryInput } from '../directories/directory-settings.js';
import { checkDirectories, seedDirectories } from '../directories/seed-directories.js';

import { checkConnections, seedConnections, type SeedConnection } from '../connections/seed-connections.js';
import { checkGroups, seedGroups, seedUserRole, type SeedGroup } from '../groups/seed-groups.js';
import { checkOrganizations, seedOrganizations, type SeedOrganization } from '../organizations/seed-organizations.js';
import { writeAllowedGroups } from '../groups/allowed-groups.js';
import { checkWebhooks, seedWebhooks } from '../webhooks/seed-webhooks.js';
import type { WebhookEntry } from '../webhooks/webhook-entry.js';
import { clientColumns, clientEntryProblems, clientRowValues, type ClientEntryWithSecret } from '../client-entry.js';
import { userColumns, userEntryProblems, type UserEntry } from '../user-entry.js';
import { checkSamlServiceProviders, seedSamlServiceProviders } from '../saml/idp/seed-service-providers.js';
import type { SamlSpInput } from '../saml/idp/service-providers.js';
import type { SamlMetadataFetching } from '../saml/metadata-fetch.js';

export interface SeedFile {
  clients: ClientEntryWithSecret[];
  users: UserEntry[];
  /** Resource servers (RFC 8707), before the clients that name them; absent when the file has no such section. */
  resource_servers?: ResourceServerEntry[];
  /** Admin risk rules (src/domain/risk/rules.ts), normalised; absent when the file has no such section. */
  risk_rules?: RiskRule[];
  /** LDAP and Active Directory servers (src/domain/directories/); absent when the file has no such section. */
  directories?: DirectoryInput[];
  /** Upstream identity providers (src/domain/connections/seed-connections.ts); absent when the file has none. */
  connections?: SeedConnection[];
  /** Groups of users (issue 20), before the clients limited to them; absent when the file has no such section. */
  groups?: SeedGroup[];
  /** Organizations (issue 40), after the users they list, before the connections that belong to them. */
  organizations?: SeedOrganization[];
  /** Webhook subscriptions (src/domain/webhooks/seed-webhooks.ts); absent when the file has none. */
  webhooks?: WebhookEntry[];
  /**
   * SAML service providers (src/domain/saml/idp/seed-service-providers.ts), after the groups they may be limited to;
   * an entry's metadata inline, or read from its metadata_url when the file is applied.
   */
  saml_service_providers?: SamlSpInput[];
}

export class SeedError extends Error {
  constructor(readonly problems: string[]) {
    super(`the seed file was refused, nothing was written:\n  ${problems.join('\n  ')}`);
    this.name = 'SeedError';
  }
}

function findDuplicates(values: string[]): string[] {
  const seen = new Set<string>();
  return values.filter((v) => (seen.has(v) ? true : (seen.add(v), false)));
}

/**
 * Checks the whole file and lists every problem, each naming its entry. Passwords are held to the policy given
 * (PASSWORD_MIN_LENGTH's, when the caller has the configuration), else to the default one.
 */
export function parseSeed(raw: unknown, policy: PasswordPolicy = new PasswordPolicy()): SeedFile {
  const problems: string[] = [];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new SeedError(['the file must hold a JSON object']);
  const file = raw as Record<string, unknown>;
  for (const key of Object.keys(file))
    if (
      ![
        'clients',
        'users',
        'risk_rules',
        'resource_servers',
        'directories',
        'connections',
        'groups',
        'organizations',
        'webhooks',
        'saml_service_providers',
      ].includes(key)
    )
      problems.push(`unknown top-level field "${key}"`);
  const clients = file.clients ?? [];
  const users = file.users ?? [];
  if (!Array.isArray(clients)) problems.push('"clients" must be an array');
  else clients.forEach((c, i) => problems.push(...clientEntryProblems(c, `clients[${i}]`)));
  if (!Array.isArray(users)) problems.push('"users" must be an array');
  else users.forEach((u, i) => problems.push(...userEntryProblems(u, policy, `users[${i}]`)));
  const rules = checkRiskRules(file.risk_rules, problems);
  const servers = checkResourceServers(file.resource_servers, problems);
  const directories = checkDirectories(file.directories, problems);
  const connections = checkConnections(file.connections, problems);
  const groups = checkGroups(file.groups, problems);
  const organizations = checkOrganizations(file.organizations, problems);
  const webhooks = checkWebhooks(file.webhooks, problems);
  const samlServiceProviders = checkSamlServiceProviders(file.saml_service_providers, problems);
  if (problems.length === 0) {
    for (const id of findDuplicates((clients as ClientEntryWithSecret[]).map((c) => c.client_id)))
      problems.push(`client_id "${id}" appears more than once`);
    for (const name of findDuplicates((users as UserEntry[]).map((u) => u.username.toLowerCase())))
      problems.push(`username "${name}" appears more than once`);
    const emails = (users as UserEntry[]).flatMap((u) => (typeof u.email === 'string' ? [u.email.toLowerCase()] : []));
    for (const email of findDuplicates(emails)) problems.push(`email "${email}" belongs to more than one user`);
  }
  if (problems.length === 0 && servers) {
    // A client's resources must be resource servers of this file or already registered: checked when applied.
    for (const id of findDuplicates(servers.map((r) => r.identifier))) problems.push(`resource server "${id}" appears more than once`);
  }
  if (problems.length > 0) throw new SeedError(problems);
  return {
    clients: clients as ClientEntryWithSecret[],
    users: users as UserEntry[],
    ...(rules ? { risk_rules: rules } : {}),
    ...(servers ? { resource_servers: servers } : {}),
    ...(directories ? { directories } : {}),
    ...(connections ? { connections } : {}),
    ...(groups ? { groups } : {}),
    ...(organizations ? { organizations } : {}),
    ...(webhooks ? { webhooks } : {}),
    ...(samlServiceProviders ? { saml_service_providers: samlServiceProviders } : {}),
  };
}

/** `resource_servers`: entries checked like `npm run admin -- resources create`. */
function checkResourceServers(raw: unknown, problems: string[]): ResourceServerEntry[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) {
    problems.push('"resource_servers" must be an array');
    return undefined;
  }
  raw.forEach((entry, i) => {
    for (const problem of resourceServerProblems(entry)) problems.push(`resource_servers[${i}]: ${problem}`);
  });
  return raw as ResourceServerEntry[];
}

/** `risk_rules`: entries `{kind, value, effect, note?}`, each checked like `npm run admin -- rules add`. */
function checkRiskRules(raw: unknown, problems: string[]): RiskRule[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) {
    problems.push('"risk_rules" must be an array');
    return undefined;
  }
  const rules: RiskRule[] = [];
  raw.forEach((entry, i) => {
    const where = `risk_rules[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`${where} must be an object`);
      return;
    }
    for (const key of Object.keys(entry))
      if (!['kind', 'value', 'effect', 'note'].includes(key)) problems.push(`${where}: unknown field "${key}"`);
    const parsed = parseRiskRule(entry as Record<string, unknown>);
    if ('problems' in parsed) for (const problem of parsed.problems) problems.push(`${where}: ${problem}`);
    else rules.push(parsed.rule);
  });
  for (const key of findDuplicates(rules.map((r) => `${r.kind} ${r.value}`))) problems.push(`risk rule "${key}" appears more than once`);
  return rules;
}

export interface SeedCounts {
  created: number;
  updated: number;
  unchanged: number;
}

export interface SeedReport {
  clients: SeedCounts;
  users: SeedCounts;
  /** Present when the seed has a resource_servers section. */
  resource_servers?: SeedCounts;
  /** Present when the seed has a risk_rules section. */
  risk_rules?: SeedCounts;
  /** Present when the seed has a directories section. */
  directories?: SeedCounts;
  /** Present when the seed has a connections section. */
  connections?: SeedCounts;
  /** Present when the seed has a groups section. */
  groups?: SeedCounts;
  /** Present when the seed has an organizations section. */
  organizations?: SeedCounts;
  /** Present when the seed has a webhooks section. */
  webhooks?: SeedCounts;
  /** Present when the seed has a saml_service_providers section. */
  saml_service_providers?: SeedCounts;
}

/** JSON with sorted keys, so that two equal objects compare equal whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Inserts an entry that is not stored yet, updates one whose stored columns differ from `desired` (compared on
 * `desired`'s columns, whatever their order), and counts which it did.
 */
async function insertOrUpdate(
  counts: SeedCounts,
  existing: object | undefined,
  desired: object,
  write: { insert: () => Promise<unknown>; update: () => Promise<unknown> },
): Promise<void> {
  if (!existing) {
    await write.insert();
    counts.created += 1;
    return;
  }
  const stored = Object.fromEntries(Object.keys(desired).map((k) => [k, (existing as Record<string, unknown>)[k]]));
  if (canonical(stored) === canonical(desired)) {
    counts.unchanged += 1;
    return;
  }
  await write.update();
  counts.updated += 1;
}

/** A stored hash is kept when it still matches the file's secret; otherwise the secret is hashed anew. */
async function keepOrHash(passwords: PasswordHasher, stored: string | null | undefined, plain: string): Promise<string> {
  if (stored && (await passwords.verify(stored, plain))) return stored;
  return passwords.hash(plain);
}

/** A stored sealed secret is kept when it still opens to the file's secret; otherwise the secret is sealed anew. */
async function keepOrSeal(
  sealing: SealingContext,
  existing: ClientRow | undefined,
  clientId: string,
  plain: string,
): Promise<StoredSecret> {
  const read = existing?.client_secret_sealed ? readSealedSecret(existing.client_secret_sealed) : undefined;
  if (read?.ok) {
    try {
      if ((await openSecret(sealing, 'client-secret', clientId, read.value)).toString('utf8') === plain) return read.value;
    } catch (err) {
      if (!(err instanceof KeyEncryptionError)) throw err;
    }
  }
  return sealSecret(sealing, 'client-secret', clientId, Buffer.from(plain, 'utf8'));
}

async function seedClient(
  db: Db,
  passwords: PasswordHasher,
  sealing: SealingContext,
  entry: ClientEntryWithSecret,
  now: Date,
  counts: SeedCounts,
): Promise<void> {
  const { client_id, client_secret } = entry;
  const existing = await findClient(db, client_id);
  const desired = clientColumns(entry, {
    client_secret_hash: client_secret === undefined ? null : await keepOrHash(passwords, existing?.client_secret_hash, client_secret),
    client_secret_sealed:
      entry.token_endpoint_auth_method === 'client_secret_jwt' ? await keepOrSeal(sealing, existing, client_id, client_secret!) : null,
  });
  await insertOrUpdate(counts, existing, desired, {
    insert: () => insertClient(db, { client_id, ...clientRowValues(desired), created_at: now, updated_at: now }),
    update: () => updateClient(db, client_id, { ...clientRowValues(desired), updated_at: now }),
  });
}

/**
 * The groups a client is limited to (or none), once the file's groups are stored: they must be among those or exist
 * already; otherwise the whole file is refused (the transaction is rolled back).
 */
async function seedAllowedGroups(db: Db, entry: ClientEntryWithSecret): Promise<void> {
  const missing = await writeAllowedGroups(db, entry.client_id, entry.allowed_groups);
  if (missing.length > 0) throw new SeedError([`client "${entry.client_id}": allowed_groups names no group "${missing.join('", "')}"`]);
}

async function seedUser(db: Db, passwords: PasswordHasher, entry: UserEntry, now: Date, counts: SeedCounts): Promise<void> {
  const { username, password } = entry;
  const existing = await findUserByUsername(db, username);
  const desired = userColumns(entry, await keepOrHash(passwords, existing?.password_hash, password));
  const { claims } = desired;
  const id = existing?.id ?? randomUUID();
  const before = { ...counts };
  await insertOrUpdate(counts, existing, desired, {
    insert: () => insertUser(db, { id, ...desired, claims: JSON.stringify(claims), created_at: now, updated_at: now }),
    update: () => updateUser(db, id, { ...desired, claims: JSON.stringify(claims), updated_at: now }),
  });
  // A changed role alone makes an unchanged user an updated one.
  if (entry.role !== undefined && (await seedUserRole(db, id, entry.role, now)) && counts.unchanged > before.unchanged) {
    counts.unchanged -= 1;
    counts.updated += 1;
  }
}

/**
 * Applies a checked seed file in one transaction. `keysEncryptionSecret` (KEYS_ENCRYPTION_SECRET) seals the secrets of
 * client_secret_jwt clients; without it they are kept in the clear, marked so (src/domain/keys/sealed-secrets.ts).
 * `samlMetadata` is the configuration SAML service providers' metadata URLs are fetched under (the issuer's rule of
 * an upstream's URLs, OUTBOUND_*); without it, under the rule of a check without the configuration.
 */
export async function applySeed(
  db: Db,
  passwords: PasswordHasher,
  seed: SeedFile,
  now = new Date(),
  options: { keysEncryptionSecret?: string; samlMetadata?: SamlMetadataFetching } = {},
): Promise<SeedReport> {
  const report: SeedReport = {
    clients: { created: 0, updated: 0, unchanged: 0 },
    users: { created: 0, updated: 0, unchanged: 0 },
  };
  const rules = seed.risk_rules;
  const ruleCounts: SeedCounts = { created: 0, updated: 0, unchanged: 0 };
  const serverCounts: SeedCounts = { created: 0, updated: 0, unchanged: 0 };
  let directoryCounts: SeedCounts | undefined;
  await db.transaction().execute(async (trx) => {
    for (const server of seed.resource_servers ?? []) await seedResourceServer(trx, server, now, serverCounts);
    const sealing: SealingContext = { db: trx, clock: () => now, config: { keysEncryptionSecret: options.keysEncryptionSecret } };
    for (const client of seed.clients) await seedClient(trx, passwords, sealing, client, now, report.clients);
    for (const user of seed.users) await seedUser(trx, passwords, user, now, report.users);
    if (seed.groups) {
      const groups = await seedGroups(trx, seed.groups, now);
      if (groups.problems.length > 0) throw new SeedError(groups.problems);
      report.groups = groups.counts;
    }
    for (const client of seed.clients) await seedAllowedGroups(trx, client);
    if (seed.organizations) {
      const organizations = await seedOrganizations(trx, seed.organizations, now);
      if (organizations.problems.length > 0) throw new SeedError(organizations.problems);
      report.organizations = organizations.counts;
    }
    if (rules) await seedRiskRules(trx, rules, now, ruleCounts);
    if (seed.directories) directoryCounts = await seedDirectories(sealing, seed.directories, now);
    if (seed.connections) report.connections = await seedConnections(trx, sealing, seed.connections, now);
    if (seed.webhooks) report.webhooks = await seedWebhooks(trx, sealing, seed.webhooks, now);
    if (seed.saml_service_providers) {
      const sps = await seedSamlServiceProviders(trx, seed.saml_service_providers, now, options.samlMetadata);
      if (sps.problems.length > 0) throw new SeedError(sps.problems);
      report.saml_service_providers = sps.counts;
    }
  });
  return {
    ...report,
    ...(seed.resource_servers ? { resource_servers: serverCounts } : {}),
    ...(rules ? { risk_rules: ruleCounts } : {}),
    ...(directoryCounts ? { directories: directoryCounts } : {}),
  };
}

async function seedResourceServer(db: Db, entry: ResourceServerEntry, now: Date, counts: SeedCounts): Promise<void> {
  const [existing] = await findResourceServers(db, [entry.identifier]);
  const desired = resourceServerColumns(entry);
  await insertOrUpdate(counts, existing, desired, {
    insert: () => upsertResourceServer(db, entry.identifier, desired, now),
    update: () => upsertResourceServer(db, entry.identifier, desired, now),
  });
}

/** Upserts each rule by kind and value; rules missing from the file are left alone (delete them with the CLI). */
async function seedRiskRules(db: Db, rules: RiskRule[], now: Date, counts: SeedCounts): Promise<void> {
  const existing = new Map((await riskRules(db)).map((r) => [`${r.kind} ${r.value}`, r]));
  for (const rule of rules) {
    const current = existing.get(`${rule.kind} ${rule.value}`);
    if (current && current.effect === rule.effect && current.note === rule.note) {
      counts.unchanged += 1;
      continue;
    }
    await addRiskRule(db, rule, now);
    if (current) counts.updated += 1;
    else counts.created += 1;
  }
}
