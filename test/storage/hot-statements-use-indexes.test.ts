// Issue 21: every statement of the hot paths finds its rows through an index, never by reading a table that grows
// with the deployment from end to end. The statements are the ones the app really sends: captured (text and
// parameters) while this test drives each flow, on a small copy of the bench's populated database
// (scripts/bench/populate.ts), then each is EXPLAINed with its own parameters and sequential scans disabled, under
// which PostgreSQL still picks one where no index serves the statement.
import { CompiledQuery, Kysely, PostgresDialect, sql, type LogEvent } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import t from 'tap';
import { populate, POPULATED_PASSWORD } from '../../scripts/bench/populate.js';
import { buildApp } from '../../src/app.js';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { applySeed } from '../../src/domain/admin/seed.js';
import type { Db } from '../../src/storage/database.js';
import { PGliteDialect } from '../../src/storage/pglite-dialect.js';
import { purgeRetention } from '../../src/jobs/purge-job.js';
import { purgeExpired } from '../../src/storage/purge.js';
import type { Database } from '../../src/storage/schema.js';
import { ALICE, testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import { poll, startDevice, TV, verify } from '../helpers/device.js';
import { authorizePath, Browser, obtainCode, pkcePair, tokenRequest } from '../helpers/flow.js';
import {
  formPost,
  GRANT_FIXTURES,
  machineToken,
  OFFLINE_SCOPE,
  REFRESHING,
  REFRESHING_BASIC,
  refreshRequest,
  userinfo,
} from '../helpers/grants.js';

/** The tables that grow with users or traffic: a sequential scan of any of them is refused. */
const LARGE_TABLES = new Set([
  'users',
  'clients',
  'devices',
  'user_networks',
  'sessions',
  'session_clients',
  'consents',
  'interactions',
  'authorization_codes',
  'access_tokens',
  'refresh_tokens',
  'sign_in_attempts',
  'sign_in_throttle',
  'device_authorizations',
  'pushed_authorization_requests',
  'second_factor_challenges',
  'security_events',
  'outbox',
  'backchannel_logouts',
]);

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Subplan Name'?: string;
  Plans?: PlanNode[];
}

function* nodes(node: PlanNode): Generator<PlanNode> {
  yield node;
  for (const child of node.Plans ?? []) yield* nodes(child);
}

/** The plan in one line, for the message of a failure: "Nested Loop(Seq Scan users, Index Scan sessions_pkey)". */
function outline(node: PlanNode): string {
  const name = [node['Subplan Name'], node['Node Type'], node['Index Name'] ?? node['Relation Name']].filter(Boolean).join(' ');
  return node.Plans ? `${name}(${node.Plans.map(outline).join(', ')})` : name;
}

/** The plan of `statement` with sequential scans disabled: its scanned tables and which of them are read in full. */
async function plan(db: Db, statement: { sql: string; parameters: readonly unknown[] }) {
  return db.connection().execute(async (conn) => {
    await sql`SET enable_seqscan = off`.execute(conn);
    try {
      const { rows } = await conn.executeQuery<{ 'QUERY PLAN': unknown }>(
        CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${statement.sql}`, [...statement.parameters]),
      );
      const raw = rows[0]!['QUERY PLAN'];
      const root = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>;
      const scanned = [...nodes(root[0]!.Plan)].filter((n) => n['Relation Name'] !== undefined);
      return {
        outline: outline(root[0]!.Plan),
        tables: scanned.map((n) => n['Relation Name']!),
        seqScanned: scanned.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']!),
      };
    } finally {
      await sql`RESET enable_seqscan`.execute(conn);
    }
  });
}

const config = testConfig({ PURGE_INTERVAL_SECONDS: '0', BACKCHANNEL_LOGOUT_POLL_SECONDS: '3600' });
const T0 = performance.now();
const mark = (w: string) => console.error(w, ((performance.now() - T0) / 1000).toFixed(1));
const database = await createTestDatabase();
mark('db');
t.teardown(() => database.drop());
const db = database.handle.db;
const hasher = new PasswordHasher(config.argon2);
// A five-thousandth of the bench's large database: 200 users, 2,000 access tokens, 4,000 sign-in attempts.
await populate(db, { scale: 0.0002, now: new Date(), passwordHash: await hasher.hash(POPULATED_PASSWORD) });
mark('populated');
await applySeed(db, hasher, { clients: [...GRANT_FIXTURES.clients!, TV], users: GRANT_FIXTURES.users });

mark('seeded');
/** Each distinct statement the app sent, with the parameters of its first run. */
const captured = new Map<string, readonly unknown[]>();
const capture = (event: LogEvent) => {
  if (event.level === 'query' && !captured.has(event.query.sql)) captured.set(event.query.sql, event.query.parameters);
};
const capturing = new Kysely<Database>({
  dialect: database.pglite
    ? new PGliteDialect(database.pglite)
    : new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 4 }) }),
  log: capture,
});
if (!database.pglite) t.teardown(() => capturing.destroy());
const app = await buildApp(config, { db: capturing, logger: pino({ level: 'silent' }), clock: () => new Date(), notifier: null });
t.teardown(() => app.close());
await app.ready();
mark('ready');

t.test('the hot flows run against the populated copy', async (t) => {
  // A failed sign-in, then sign-in with a password, consent and a code (the throttle and the risk counters).
  const failed = new Browser();
  const params = {
    response_type: 'code',
    client_id: REFRESHING.client_id,
    redirect_uri: REFRESHING.redirect_uris[0],
    scope: OFFLINE_SCOPE,
  };
  await obtainCode(app, params, { browser: failed, user: { username: ALICE.username, password: 'not-the-password' } }).catch(() => {});
  const first = await obtainCode(app, params);
  const redeem = (code: string, verifier: string) =>
    tokenRequest(
      app,
      { grant_type: 'authorization_code', code, redirect_uri: first.redirectUri, code_verifier: verifier },
      REFRESHING_BASIC,
    );
  const tokens = (await redeem(first.code, first.verifier)).json() as { access_token: string; refresh_token: string };
  t.ok(tokens.access_token, 'code redemption');

  // Authorize with the session, and that code's redemption.
  const { verifier, challenge } = pkcePair();
  const authorized = await first.browser.request(
    app,
    'GET',
    authorizePath({ ...params, code_challenge: challenge, code_challenge_method: 'S256', state: 's' }),
  );
  const code = new URL(String(authorized.headers.location)).searchParams.get('code');
  t.ok(code, 'authorize with a session');
  t.equal((await redeem(code!, verifier)).statusCode, 200);

  const refreshed = await refreshRequest(app, tokens.refresh_token);
  t.equal(refreshed.statusCode, 200, 'refresh');
  const fresh = refreshed.json() as { access_token: string; refresh_token: string };
  t.equal((await userinfo(app, fresh.access_token)).statusCode, 200, 'userinfo');
  t.equal((await formPost(app, '/sso/introspect', { token: fresh.access_token })).json().active, true, 'introspection');
  t.equal((await formPost(app, '/sso/revoke', { token: fresh.refresh_token })).statusCode, 200, 'revocation');
  t.ok(await machineToken(app), 'client_credentials');

  // The device flow: authorization, the pending poll, the approval in a browser (a sign-in), the tokens.
  const device = await startDevice(app);
  await poll(app, device.device_code);
  await verify(app, device.user_code);
  t.equal((await poll(app, device.device_code)).statusCode, 200, 'device flow');

  const deleted = await purgeExpired(capturing, { now: new Date(), ...purgeRetention(config) });
  t.ok(deleted.access_tokens! > 0, 'the purge found expired access tokens to delete');
});

t.test('no statement the app sent reads a large table sequentially', async (t) => {
  const offenders: Array<{ sql: string; tables: string[]; plan: string }> = [];
  const reached = new Set<string>();
  for (const [text, parameters] of captured) {
    if (!/^\s*(select|insert|update|delete|with)\b/i.test(text)) continue;
    const { tables, seqScanned, outline } = await plan(db, { sql: text, parameters });
    for (const table of tables) reached.add(table);
    const large = seqScanned.filter((table) => LARGE_TABLES.has(table));
    if (large.length > 0) offenders.push({ sql: text.replace(/\s+/g, ' ').slice(0, 200), tables: large, plan: outline });
  }
  t.same(offenders, [], 'every statement reaches the large tables through an index');
  // The capture saw the flows: their tables are in the plans.
  for (const table of [
    'users',
    'sessions',
    'authorization_codes',
    'access_tokens',
    'refresh_tokens',
    'sign_in_attempts',
    'devices',
    'device_authorizations',
  ])
    t.ok(reached.has(table), `a statement reached ${table}`);
});

t.test("the sign-in statements read a login's failures, not all its attempts", async (t) => {
  // A login that signs in often has many attempts in the stuffing window and, since it signs in, few failures: the
  // count of failures since its last sign-in reads the partial index of failures, as the network's, machine's and
  // fingerprint's do (migrations/20261202000000_login_failing_index.sql).
  const risk = [...captured].find(([text]) => /WITH known AS/.test(text) && /INSERT INTO sign_in_attempts/.test(text));
  t.ok(risk, 'the risk statement was captured');
  const { outline } = await plan(db, { sql: risk![0], parameters: risk![1] });
  for (const index of [
    'sign_in_attempts_login_failing_idx',
    'sign_in_attempts_network_failing_idx',
    'sign_in_attempts_machine_failing_idx',
    'sign_in_attempts_fingerprint_failing_idx',
  ])
    t.match(outline, index, `failures read through ${index}`);
  // The sign-in that excuses the login's earlier failures finds them the same way (src/storage/risk.ts).
  const sighting = [...captured].find(([text]) => /WITH device AS/.test(text) && /UPDATE sign_in_attempts/.test(text));
  t.ok(sighting, 'the device sighting statement was captured');
  const marked = await plan(db, { sql: sighting![0], parameters: sighting![1] });
  t.match(marked.outline, 'sign_in_attempts_login_failing_idx', "a login's earlier failures read through its failures' index");
  t.notMatch(marked.outline, 'sign_in_attempts_login_idx', "never through all the login's attempts");
});

t.test('a statement no index serves is caught', async (t) => {
  const { seqScanned } = await plan(db, { sql: 'SELECT token_hash FROM access_tokens WHERE scope = $1', parameters: ['api.read'] });
  t.same(seqScanned, ['access_tokens']);
});
