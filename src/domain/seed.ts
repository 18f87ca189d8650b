// Seeding clients and users from an admin's JSON file: validated as a whole, applied in one
// transaction, idempotent (an unchanged entry is not written), secrets and passwords hashed.
import { randomUUID } from 'node:crypto';
import { insertClient, findClient, updateClient } from '../storage/clients.js';
import type { Db } from '../storage/database.js';
import { findUserByUsername, insertUser, updateUser } from '../storage/users.js';
import { DEVICE_CODE_GRANT } from './device-authorization.js';
import type { PasswordHasher } from './passwords.js';
import { SIGNING_ALGS, isSigningAlg } from './signing-algs.js';
import { MAX_CREDENTIAL_LENGTH } from './users.js';

export interface SeedClient {
  client_id: string;
  client_secret?: string;
  client_name?: string;
  /** Required for clients of the authorization code flow. */
  redirect_uris?: string[];
  post_logout_redirect_uris?: string[];
  grant_types?: string[];
  response_types?: string[];
  token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post' | 'none';
  [metadata: string]: unknown;
}

export interface SeedUser {
  username: string;
  password: string;
  email?: string;
  email_verified?: boolean;
  [claim: string]: unknown;
}

export interface SeedFile {
  clients: SeedClient[];
  users: SeedUser[];
}

export class SeedError extends Error {
  constructor(readonly problems: string[]) {
    super(`the seed file was refused, nothing was written:\n  ${problems.join('\n  ')}`);
    this.name = 'SeedError';
  }
}

const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'];
const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials', DEVICE_CODE_GRANT];
const CLIENT_URL_FIELDS = ['logo_uri', 'client_uri', 'policy_uri', 'tos_uri'];
export const CLIENT_FIELDS = new Set([
  'client_id', 'client_secret', 'client_name', 'redirect_uris', 'post_logout_redirect_uris', 'grant_types',
  'response_types', 'token_endpoint_auth_method', 'contacts', 'scope', ...CLIENT_URL_FIELDS,
  'id_token_signed_response_alg', 'backchannel_logout_uri', 'backchannel_logout_session_required',
]);
// OIDC Core 5.1 standard claims a user entry may carry (sub and updated_at are the provider's own).
export const STRING_CLAIMS = [
  'name', 'given_name', 'family_name', 'middle_name', 'nickname', 'preferred_username', 'profile', 'picture',
  'website', 'email', 'gender', 'birthdate', 'zoneinfo', 'locale', 'phone_number',
];
export const BOOLEAN_CLAIMS = ['email_verified', 'phone_number_verified'];
const ADDRESS_FIELDS = ['formatted', 'street_address', 'locality', 'region', 'postal_code', 'country'];
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);

/**
 * RFC 6749 3.1.2: absolute, no fragment. RFC 9700 2.1 / RFC 8252 7.3: plain http only on loopback.
 * Private-use schemes of native apps (com.example.app:/cb) are allowed; script-bearing schemes are not.
 */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (uri.includes('#')) return 'must not contain a fragment';
  if (['javascript:', 'data:', 'file:', 'vbscript:'].includes(url.protocol)) return `must not use the ${url.protocol} scheme`;
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) return 'must use https (http is allowed only on localhost, 127.0.0.1 and [::1])';
  return undefined;
}

function checkClient(raw: unknown, where: string, problems: string[]): void {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push(`${where} must be an object`);
    return;
  }
  const c = raw as Record<string, unknown>;
  const label = isString(c.client_id) ? `${where} (client_id "${c.client_id}")` : where;
  const bad = (msg: string) => problems.push(where === '' ? msg : `${label}: ${msg}`);
  for (const key of Object.keys(c)) if (!CLIENT_FIELDS.has(key)) bad(`unknown field "${key}"`);
  if (!isString(c.client_id)) bad('client_id must be a non-empty string');
  const method = c.token_endpoint_auth_method ?? 'client_secret_basic';
  if (!AUTH_METHODS.includes(method as string)) bad(`token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`);
  if (method === 'none' && c.client_secret !== undefined) bad('a public client (token_endpoint_auth_method "none") must not have a client_secret');
  if (method !== 'none' && !isString(c.client_secret)) bad('client_secret must be a non-empty string');
  if (isString(c.client_secret) && c.client_secret.length < 16) bad('client_secret must be at least 16 characters');
  // RFC 7591 2: redirect_uris is "REQUIRED for redirect-based flows"; a client without the code flow (device or
  // client_credentials only) may register none.
  const redirectBased = !Array.isArray(c.grant_types) || c.grant_types.includes('authorization_code');
  if (redirectBased || c.redirect_uris !== undefined) {
    if (!isStringArray(c.redirect_uris) || (redirectBased && c.redirect_uris.length === 0)) bad('redirect_uris must be a non-empty array of URIs');
    else c.redirect_uris.forEach((u, i) => { const p = redirectUriProblem(u); if (p) bad(`redirect_uris[${i}] ${p}`); });
  }
  if (c.post_logout_redirect_uris !== undefined) {
    if (!isStringArray(c.post_logout_redirect_uris)) bad('post_logout_redirect_uris must be an array of URIs');
    else c.post_logout_redirect_uris.forEach((u, i) => { const p = redirectUriProblem(u); if (p) bad(`post_logout_redirect_uris[${i}] ${p}`); });
  }
  if (c.grant_types !== undefined && (!isStringArray(c.grant_types) || c.grant_types.some((g) => !GRANT_TYPES.includes(g)))) {
    bad(`grant_types must be an array of ${GRANT_TYPES.join(', ')}`);
  }
  if (c.response_types !== undefined && (!isStringArray(c.response_types) || c.response_types.some((r) => r !== 'code'))) {
    bad('response_types may only contain "code"');
  }
  if (c.client_name !== undefined && !isString(c.client_name)) bad('client_name must be a non-empty string');
  for (const field of CLIENT_URL_FIELDS) {
    if (c[field] !== undefined && (!isString(c[field]) || redirectUriProblem(c[field] as string))) bad(`${field} must be an https URL`);
  }
  if (c.contacts !== undefined && !isStringArray(c.contacts)) bad('contacts must be an array of strings');
  if (c.scope !== undefined && !isString(c.scope)) bad('scope must be a string');
  if (c.backchannel_logout_uri !== undefined) {
    // Back-Channel Logout 1.0 2.2: absolute, no fragment; https unless loopback, like a redirect URI.
    const p = isString(c.backchannel_logout_uri) ? redirectUriProblem(c.backchannel_logout_uri) : 'is not an absolute URI';
    if (p || !/^https?:/.test(c.backchannel_logout_uri as string)) bad(`backchannel_logout_uri ${p ?? 'must be an http(s) URL'}`);
  }
  if (c.backchannel_logout_session_required !== undefined && typeof c.backchannel_logout_session_required !== 'boolean') {
    bad('backchannel_logout_session_required must be true or false');
  }
  if (c.id_token_signed_response_alg !== undefined && !isSigningAlg(c.id_token_signed_response_alg)) {
    bad(`id_token_signed_response_alg must be one of ${SIGNING_ALGS.join(', ')}`);
  }
}

function checkUser(raw: unknown, where: string, problems: string[]): void {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push(`${where} must be an object`);
    return;
  }
  const u = raw as Record<string, unknown>;
  const label = isString(u.username) ? `${where} (username "${u.username}")` : where;
  const bad = (msg: string) => problems.push(where === '' ? msg : `${label}: ${msg}`);
  if (!isString(u.username)) bad('username must be a non-empty string');
  if (!isString(u.password)) bad('password must be a non-empty string');
  else if (u.password.length < 8) bad('password must be at least 8 characters');
  // Sign-in refuses longer input before any hashing (users.ts): such a password could never be used.
  else if (u.password.length > MAX_CREDENTIAL_LENGTH) bad(`password must be at most ${MAX_CREDENTIAL_LENGTH} characters`);
  for (const [key, value] of Object.entries(u)) {
    if (key === 'username' || key === 'password') continue;
    if (STRING_CLAIMS.includes(key)) {
      if (typeof value !== 'string') bad(`${key} must be a string`);
    } else if (BOOLEAN_CLAIMS.includes(key)) {
      if (typeof value !== 'boolean') bad(`${key} must be true or false`);
    } else if (key === 'address') {
      const ok = typeof value === 'object' && value !== null && !Array.isArray(value)
        && Object.entries(value).every(([k, v]) => ADDRESS_FIELDS.includes(k) && typeof v === 'string');
      if (!ok) bad(`address must be an object with string fields among ${ADDRESS_FIELDS.join(', ')}`);
    } else {
      bad(`unknown field "${key}" (user entries take username, password and OIDC Core 5.1 standard claims)`);
    }
  }
  if (typeof u.email === 'string' && !/^[^\s@]+@[^\s@]+$/.test(u.email)) bad('email is not an email address');
}

function findDuplicates(values: string[]): string[] {
  const seen = new Set<string>();
  return values.filter((v) => (seen.has(v) ? true : (seen.add(v), false)));
}

/** The problems of one client entry (the seed file's format), unlabelled: for the admin command line. */
export function clientEntryProblems(raw: unknown): string[] {
  const problems: string[] = [];
  checkClient(raw, '', problems);
  return problems;
}

/** The problems of one user entry (the seed file's format), unlabelled. */
export function userEntryProblems(raw: unknown): string[] {
  const problems: string[] = [];
  checkUser(raw, '', problems);
  return problems;
}

/** Checks the whole file and lists every problem, each naming its entry. */
export function parseSeed(raw: unknown): SeedFile {
  const problems: string[] = [];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new SeedError(['the file must hold a JSON object']);
  const file = raw as Record<string, unknown>;
  for (const key of Object.keys(file)) if (key !== 'clients' && key !== 'users') problems.push(`unknown top-level field "${key}"`);
  const clients = file.clients ?? [];
  const users = file.users ?? [];
  if (!Array.isArray(clients)) problems.push('"clients" must be an array');
  else clients.forEach((c, i) => checkClient(c, `clients[${i}]`, problems));
  if (!Array.isArray(users)) problems.push('"users" must be an array');
  else users.forEach((u, i) => checkUser(u, `users[${i}]`, problems));
  if (problems.length === 0) {
    for (const id of findDuplicates((clients as SeedClient[]).map((c) => c.client_id))) problems.push(`client_id "${id}" appears more than once`);
    for (const name of findDuplicates((users as SeedUser[]).map((u) => u.username.toLowerCase()))) problems.push(`username "${name}" appears more than once`);
    const emails = (users as SeedUser[]).flatMap((u) => (typeof u.email === 'string' ? [u.email.toLowerCase()] : []));
    for (const email of findDuplicates(emails)) problems.push(`email "${email}" belongs to more than one user`);
  }
  if (problems.length > 0) throw new SeedError(problems);
  return { clients: clients as SeedClient[], users: users as SeedUser[] };
}

export interface SeedCounts {
  created: number;
  updated: number;
  unchanged: number;
}

export interface SeedReport {
  clients: SeedCounts;
  users: SeedCounts;
}

/** JSON with sorted keys, so that two equal objects compare equal whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A stored hash is kept when it still matches the file's secret; otherwise the secret is hashed anew. */
async function keepOrHash(passwords: PasswordHasher, stored: string | null | undefined, plain: string): Promise<string> {
  if (stored && (await passwords.verify(stored, plain))) return stored;
  return passwords.hash(plain);
}

/** The columns of a validated client entry (defaults filled in); its secret goes in already hashed, or null. */
export function clientColumns(entry: SeedClient, secretHash: string | null) {
  const {
    client_id: _id, client_secret: _secret, client_name, redirect_uris, post_logout_redirect_uris, grant_types,
    response_types, token_endpoint_auth_method, ...metadata
  } = entry;
  return {
    client_secret_hash: secretHash,
    client_name: client_name ?? null,
    redirect_uris: redirect_uris ?? [],
    post_logout_redirect_uris: post_logout_redirect_uris ?? [],
    grant_types: grant_types ?? ['authorization_code'],
    response_types: response_types ?? ['code'],
    token_endpoint_auth_method: token_endpoint_auth_method ?? 'client_secret_basic',
    metadata,
  };
}

async function seedClient(db: Db, passwords: PasswordHasher, entry: SeedClient, now: Date, counts: SeedCounts): Promise<void> {
  const { client_id, client_secret } = entry;
  const existing = await findClient(db, client_id);
  const desired = clientColumns(
    entry,
    client_secret === undefined ? null : await keepOrHash(passwords, existing?.client_secret_hash, client_secret),
  );
  const { metadata } = desired;
  if (!existing) {
    await insertClient(db, { client_id, ...desired, metadata: JSON.stringify(metadata), created_at: now, updated_at: now });
    counts.created += 1;
    return;
  }
  const current = {
    client_secret_hash: existing.client_secret_hash,
    client_name: existing.client_name,
    redirect_uris: existing.redirect_uris,
    post_logout_redirect_uris: existing.post_logout_redirect_uris,
    grant_types: existing.grant_types,
    response_types: existing.response_types,
    token_endpoint_auth_method: existing.token_endpoint_auth_method,
    metadata: existing.metadata,
  };
  if (canonical(current) === canonical(desired)) {
    counts.unchanged += 1;
    return;
  }
  await updateClient(db, client_id, { ...desired, metadata: JSON.stringify(metadata), updated_at: now });
  counts.updated += 1;
}

/** The columns of a validated user entry; its password goes in already hashed. */
export function userColumns(entry: SeedUser, passwordHash: string) {
  const { username, password: _password, email, email_verified, ...claims } = entry;
  return { username, password_hash: passwordHash, email: email ?? null, email_verified: email_verified ?? false, claims };
}

async function seedUser(db: Db, passwords: PasswordHasher, entry: SeedUser, now: Date, counts: SeedCounts): Promise<void> {
  const { username, password } = entry;
  const existing = await findUserByUsername(db, username);
  const desired = userColumns(entry, await keepOrHash(passwords, existing?.password_hash, password));
  const { claims } = desired;
  if (!existing) {
    await insertUser(db, { id: randomUUID(), ...desired, claims: JSON.stringify(claims), created_at: now, updated_at: now });
    counts.created += 1;
    return;
  }
  const current = {
    username: existing.username,
    password_hash: existing.password_hash,
    email: existing.email,
    email_verified: existing.email_verified,
    claims: existing.claims,
  };
  if (canonical(current) === canonical(desired)) {
    counts.unchanged += 1;
    return;
  }
  await updateUser(db, existing.id, { ...desired, claims: JSON.stringify(claims), updated_at: now });
  counts.updated += 1;
}

/** Applies a validated seed in one transaction: all of it or none of it. */
export async function applySeed(db: Db, passwords: PasswordHasher, seed: SeedFile, now = new Date()): Promise<SeedReport> {
  const report: SeedReport = {
    clients: { created: 0, updated: 0, unchanged: 0 },
    users: { created: 0, updated: 0, unchanged: 0 },
  };
  await db.transaction().execute(async (trx) => {
    for (const client of seed.clients) await seedClient(trx, passwords, client, now, report.clients);
    for (const user of seed.users) await seedUser(trx, passwords, user, now, report.users);
  });
  return report;
}
