// GET /sso/security-events: who may read (ADMIN_API_TOKEN, a client_credentials token with security_events:read),
// RFC 6750 errors, the filters, the cursor, and that no event carries a secret.
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import t, { type Test } from 'tap';
import { storedKey } from '../../../src/domain/secrets.js';
import { insertSecurityEvent } from '../../../src/storage/security-events.js';
import { ALICE, BOB, buildTestApp, CONFIDENTIAL, FIXTURES } from '../../helpers/app.js';
import { basicAuth, Browser, obtainCode, tokenRequest } from '../../helpers/flow.js';
import { codeTokens, MACHINE, MACHINE_BASIC, userId } from '../../helpers/grants.js';

const ADMIN_TOKEN = 'admin-token-0123456789-abcdefghijklmnopqrstuv';
/** A relying party allowed to read security events. */
const AUDITOR = {
  client_id: 'auditor',
  client_secret: 'auditor-secret-0123456789',
  redirect_uris: ['https://auditor.example/cb'],
  grant_types: ['authorization_code', 'client_credentials'],
  scope: 'openid security_events:read',
};
const AUDITOR_BASIC = basicAuth(AUDITOR.client_id, AUDITOR.client_secret);
const SEED = { clients: [...FIXTURES.clients, AUDITOR, MACHINE], users: FIXTURES.users };

const test = await buildTestApp(t, { env: { ADMIN_API_TOKEN: ADMIN_TOKEN }, seed: SEED });
const { app, db } = test;

interface Page {
  events: Array<{
    id: string;
    type: string;
    created_at: string;
    user_id: string | null;
    username: string | null;
    details: Record<string, unknown>;
  }>;
  next_cursor: string | null;
}

function events(query: Record<string, string> | string = {}, token: string | null = ADMIN_TOKEN): Promise<LightMyRequestResponse> {
  const search = typeof query === 'string' ? query : new URLSearchParams(query).toString();
  return app.inject({
    method: 'GET',
    url: `/sso/security-events${search ? `?${search}` : ''}`,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });
}

async function page(t: Test, query: Record<string, string> = {}, token = ADMIN_TOKEN): Promise<Page> {
  const res = await events(query, token);
  t.equal(res.statusCode, 200, res.body);
  return res.json() as Page;
}

async function clientToken(auth = AUDITOR_BASIC, scope?: string): Promise<string> {
  const res = await tokenRequest(app, { grant_type: 'client_credentials', scope }, auth);
  if (res.statusCode !== 200) throw new Error(res.body);
  return (res.json() as { access_token: string }).access_token;
}

function assertBearerError(t: Test, res: LightMyRequestResponse, status: number, error: string) {
  t.equal(res.statusCode, status, res.body);
  t.equal(res.json().error, error);
  t.equal(res.headers['cache-control'], 'no-store');
  t.match(String(res.headers['www-authenticate']), new RegExp(`^Bearer realm="sso", error="${error}"`));
}

// Two sign-ins for Alice and one for Bob from fresh browsers: allowed sign-ins and a new device each.
const aliceBrowser = new Browser();
await obtainCode(app, {}, { browser: aliceBrowser });
test.advance(60);
await obtainCode(app, {}, { user: BOB });
test.advance(60);
await obtainCode(app, { prompt: 'login' }, { browser: aliceBrowser });

t.test('an admin with ADMIN_API_TOKEN reads the events, newest first, never cached', async (t) => {
  const res = await events();
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.headers['cache-control'], 'no-store');
  t.match(res.headers['content-type'], /^application\/json/);
  const body = res.json() as Page;
  t.same(
    body.events.map((e) => [e.type, e.username]),
    [
      ['sign_in_allowed', 'alice'],
      ['new_device', 'bob'],
      ['sign_in_allowed', 'bob'],
      ['new_device', 'alice'],
      ['sign_in_allowed', 'alice'],
    ],
  );
  const times = body.events.map((e) => Date.parse(e.created_at));
  t.same(
    times,
    [...times].sort((a, b) => b - a),
    'newest first',
  );
  t.equal(body.next_cursor, null, 'everything fits on one page');
  const latest = body.events[0]!;
  t.equal(latest.user_id, await userId(db, ALICE.username), 'user_id is the sub');
  t.match(latest.details, { action: 'ALLOW', reasons: ['KNOWN_DEVICE'], amr: ['pwd'] });
});

t.test('RFC 6750 3.1: a request without a token gets 401 and a bare Bearer challenge with no error code', async (t) => {
  const res = await events({}, null);
  t.equal(res.statusCode, 401);
  t.equal(res.headers['www-authenticate'], 'Bearer realm="sso", scope="security_events:read"');
  const basic = await app.inject({ method: 'GET', url: '/sso/security-events', headers: { authorization: AUDITOR_BASIC } });
  t.equal(basic.statusCode, 401, 'another scheme counts as no bearer token');
  t.equal(basic.headers['www-authenticate'], 'Bearer realm="sso", scope="security_events:read"');
});

t.test('RFC 6750 3.1: an unknown or malformed token gets 401 invalid_token', async (t) => {
  assertBearerError(t, await events({}, `${ADMIN_TOKEN}x`), 401, 'invalid_token');
  assertBearerError(t, await events({}, 'not a token'), 401, 'invalid_token');
});

t.test('RFC 6750 2.3: a token in the query string is refused with invalid_request', async (t) => {
  const res = await events({ access_token: ADMIN_TOKEN }, null);
  t.equal(res.statusCode, 400);
  t.equal(res.json().error, 'invalid_request');
});

t.test('without ADMIN_API_TOKEN admin access is off: no token is an admin token', async (t) => {
  const off = await buildTestApp(t);
  const res = await off.app.inject({ method: 'GET', url: '/sso/security-events', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assertBearerError(t, res, 401, 'invalid_token');
});

t.test('a client registered for security_events:read reads the events with a client_credentials token', async (t) => {
  const token = await clientToken(AUDITOR_BASIC, 'security_events:read');
  const body = await page(t, {}, token);
  t.equal(body.events.length, 5);
});

t.test('RFC 6750 3.1: a client_credentials token without the scope gets 403 insufficient_scope naming it', async (t) => {
  const res = await events({}, await clientToken(MACHINE_BASIC));
  assertBearerError(t, res, 403, 'insufficient_scope');
  t.match(String(res.headers['www-authenticate']), 'scope="security_events:read"');
});

t.test('a client that does not register security_events:read cannot obtain it (RFC 6749 3.3 invalid_scope)', async (t) => {
  const res = await tokenRequest(app, { grant_type: 'client_credentials', scope: 'security_events:read' }, MACHINE_BASIC);
  t.equal(res.statusCode, 400);
  t.equal(res.json().error, 'invalid_scope');
});

t.test('a client that no longer registers the scope loses access with the tokens it already holds', async (t) => {
  const token = await clientToken();
  const client = await db.selectFrom('clients').select('metadata').where('client_id', '=', AUDITOR.client_id).executeTakeFirstOrThrow();
  await db
    .updateTable('clients')
    .set({ metadata: JSON.stringify({ ...client.metadata, scope: 'openid' }) })
    .where('client_id', '=', AUDITOR.client_id)
    .execute();
  t.teardown(() =>
    db
      .updateTable('clients')
      .set({ metadata: JSON.stringify(client.metadata) })
      .where('client_id', '=', AUDITOR.client_id)
      .execute(),
  );
  assertBearerError(t, await events({}, token), 403, 'insufficient_scope');
});

t.test('an expired or revoked client token gets 401 invalid_token', async (t) => {
  const revoked = await clientToken();
  await db.updateTable('access_tokens').set({ revoked_at: new Date() }).where('token_hash', '=', storedKey(revoked)).execute();
  assertBearerError(t, await events({}, revoked), 401, 'invalid_token');
  const expired = await clientToken();
  await db
    .updateTable('access_tokens')
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where('token_hash', '=', storedKey(expired))
    .execute();
  assertBearerError(t, await events({}, expired), 401, 'invalid_token');
});

t.test('user takes a username (any case) or a user id', async (t) => {
  const byName = await page(t, { user: 'BOB' });
  t.same(
    byName.events.map((e) => e.username),
    ['bob', 'bob'],
  );
  const byId = await page(t, { user: await userId(db, ALICE.username) });
  t.same(
    byId.events.map((e) => e.username),
    ['alice', 'alice', 'alice'],
  );
  t.same((await page(t, { user: 'nobody' })).events, [], 'an unknown user has no events');
});

t.test('type keeps one kind of event', async (t) => {
  const body = await page(t, { type: 'new_device' });
  t.same(
    body.events.map((e) => [e.type, e.username]),
    [
      ['new_device', 'bob'],
      ['new_device', 'alice'],
    ],
  );
});

t.test('since is inclusive and until exclusive, in any RFC 3339 offset', async (t) => {
  const all = (await page(t)).events;
  const bobAt = all.filter((e) => e.username === 'bob').at(-1)!.created_at;
  const since = await page(t, { since: bobAt });
  t.same(
    since.events.map((e) => e.username),
    ['alice', 'bob', 'bob'],
  );
  const until = await page(t, { until: bobAt });
  t.same(
    until.events.map((e) => e.username),
    ['alice', 'alice'],
  );
  const shifted = new Date(Date.parse(bobAt) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
  t.same((await page(t, { since: shifted })).events.length, 3, 'a +02:00 offset means the same instant');
  const unencoded = await events(`since=${shifted}`);
  t.equal(unencoded.statusCode, 200, 'an unencoded "+" (read as a space) is understood');
  t.equal((unencoded.json() as Page).events.length, 3);
});

t.test('limit and cursor page through every event once, newest first, also when events share a timestamp', async (t) => {
  const separate = await buildTestApp(t, { env: { ADMIN_API_TOKEN: ADMIN_TOKEN } });
  const at = new Date('2026-03-01T10:00:00.000Z');
  for (let i = 0; i < 7; i += 1) {
    await insertSecurityEvent(separate.db, {
      type: 'sign_in_blocked',
      userId: null,
      deviceId: null,
      clientId: null,
      createdAt: i < 4 ? at : new Date(at.getTime() + i),
      details: { n: i },
    });
  }
  // Two events apart by one microsecond only.
  await sql`INSERT INTO security_events (type, created_at)
    VALUES ('device_revoked', '2026-03-01T10:00:00.000001Z'), ('device_revoked', '2026-03-01T10:00:00.000002Z')`.execute(separate.db);
  const seen: string[] = [];
  const pages: number[] = [];
  let cursor: string | null = null;
  do {
    const query: Record<string, string> = { limit: '3', ...(cursor ? { cursor } : {}) };
    const res = await separate.app.inject({
      method: 'GET',
      url: `/sso/security-events?${new URLSearchParams(query)}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    t.equal(res.statusCode, 200, res.body);
    const body = res.json() as Page;
    pages.push(body.events.length);
    seen.push(...body.events.map((e) => `${e.type}:${e.details.n ?? e.created_at}`));
    cursor = body.next_cursor;
  } while (cursor);
  t.same(pages, [3, 3, 3], 'three full pages and no empty fourth');
  t.same(
    seen,
    [
      'sign_in_blocked:6',
      'sign_in_blocked:5',
      'sign_in_blocked:4',
      'device_revoked:2026-03-01T10:00:00.000Z',
      'device_revoked:2026-03-01T10:00:00.000Z',
      'sign_in_blocked:3',
      'sign_in_blocked:2',
      'sign_in_blocked:1',
      'sign_in_blocked:0',
    ],
    'by time to the microsecond, then by id, each once',
  );
});

t.test('malformed parameters get 400 invalid_request naming the parameter', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['limit=0', /limit/],
    ['limit=201', /limit/],
    ['limit=ten', /limit/],
    ['since=2026-02-30T00:00:00Z', /since/],
    ['since=2026-01-01', /since/],
    ['until=yesterday', /until/],
    ['since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z', /since must be before until/],
    ['cursor=bm90LWEtY3Vyc29y', /cursor/],
    ['type=DROP%20TABLE', /type/],
    ['user=alice&user=bob', /user must not be repeated/],
  ];
  for (const [query, description] of cases) {
    const res = await events(query);
    t.equal(res.statusCode, 400, query);
    t.equal(res.json().error, 'invalid_request', query);
    t.match(res.json().error_description, description, query);
  }
});

t.test('no event carries a password, a cookie, an address or the user agent', async (t) => {
  const res = await events({ limit: '200' });
  const secrets = [
    ALICE.password,
    BOB.password,
    aliceBrowser.get('sso_session')!,
    aliceBrowser.get('sso_device')!,
    '127.0.0.1',
    'lightMyRequest',
    CONFIDENTIAL.client_secret,
  ];
  for (const secret of secrets) t.notOk(res.body.includes(secret), `no ${secret.slice(0, 3)}...`);
  const stored = await db.selectFrom('security_events').select('details').execute();
  t.notOk(JSON.stringify(stored).includes(aliceBrowser.get('sso_device')!), 'not stored either');
});

t.test('discovery advertises neither the endpoint nor the scope: they are not standard metadata', async (t) => {
  const res = await app.inject({ method: 'GET', url: '/sso/.well-known/openid-configuration' });
  t.notOk(res.body.includes('security_events'));
  t.notOk(res.body.includes('security-events'));
});

// Last: it signs Alice in once more, adding events.
t.test('the authorization endpoint never grants security_events:read: a user token asking for it gets 403', async (t) => {
  const tokens = await codeTokens(app, AUDITOR, AUDITOR_BASIC, 'openid security_events:read');
  t.equal(tokens.scope, 'openid', 'the scope is dropped like any scope the authorization endpoint does not know');
  assertBearerError(t, await events({}, tokens.access_token), 403, 'insufficient_scope');
});
