// /admin/api/v1/scim-tokens (src/http/admin-api/scim-tokens.ts): a long-lived SCIM token is made with its value shown
// once (a replay under the same Idempotency-Key never shows it), kept as a digest, listed, read and revoked; SCIM
// takes it until it is revoked or expires, then answers 401 as for any bad token; no log line or audit record holds it.
import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import { sha256 } from '../../../src/domain/secrets.js';
import { loggerOptions } from '../../../src/logger.js';
import { ADMIN_WRITER, adminApiApp, clientToken } from '../../helpers/admin-api.js';

const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});
const api = await adminApiApp(t, { logger: pino(loggerOptions('info'), sink) });
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const scim = (token: string, url = '/scim/v2/Users') =>
  api.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
const tokens: string[] = [];

t.test('POST /scim-tokens answers 201 with the token, shown once; only its digest is stored; a replay comes without it', async (t) => {
  const headers = { 'idempotency-key': 'entra-1' };
  const res = await api.call(t, 'POST', '/scim-tokens', { body: { name: 'entra' }, headers });
  t.equal(res.statusCode, 201);
  t.equal(res.headers.location, '/admin/api/v1/scim-tokens/entra');
  t.match(res.json(), { name: 'entra', expires_at: null, last_used_at: null, expired: false });
  const token = res.json().token as string;
  t.match(token, /^scim_[A-Za-z0-9_-]{43}$/, 'the scim_ prefix, then 256 random bits');
  tokens.push(token);
  const replay = await api.call(t, 'POST', '/scim-tokens', { body: { name: 'entra' }, headers });
  t.equal(replay.statusCode, 201);
  t.equal(replay.headers['idempotent-replayed'], 'true');
  t.notOk('token' in replay.json(), 'the token is not shown twice');
  t.equal(replay.json().token_replayed_without_secret, true);
  const rows = await api.db.selectFrom('scim_tokens').selectAll().execute();
  t.same(
    rows.map((r) => [r.name, r.token_hash]),
    [['entra', sha256(token)]],
  );
  const stored = await api.db.selectFrom('admin_idempotency_keys').selectAll().execute();
  t.notOk(JSON.stringify(stored).includes(token), 'the token is not in the stored replay');
});

t.test('a create with expires_in_days sets expires_at; a taken name is 409; bad input is 400 and stores nothing', async (t) => {
  const before = Date.now();
  const okta = await api.call(t, 'POST', '/scim-tokens', { body: { name: 'okta', expires_in_days: 90 } });
  t.equal(okta.statusCode, 201);
  tokens.push(okta.json().token);
  const expires = Date.parse(okta.json().expires_at);
  t.ok(expires >= before + 90 * 86_400_000 - 1000 && expires <= Date.now() + 90 * 86_400_000, 'ninety days from now');
  const taken = await api.call(t, 'POST', '/scim-tokens', { body: { name: 'entra' } });
  t.equal(taken.statusCode, 409);
  t.equal(taken.json().code, 'conflict');
  for (const body of [
    { name: 'Not A Name' },
    { name: 'x', expires_in_days: 0 },
    { name: 'x', expires_in_days: 3651 },
    { name: 'x', expires_in_days: 1.5 },
    { name: 'x', token: 'scim_chosen-by-the-caller-0000000000000000000' },
    {},
  ]) {
    const res = await api.call(t, 'POST', '/scim-tokens', { body });
    t.equal(res.statusCode, 400, JSON.stringify(body));
  }
  t.equal(
    await api.db
      .selectFrom('scim_tokens')
      .select('name')
      .execute()
      .then((r) => r.length),
    2,
    'nothing refused was stored',
  );
});

t.test('GET /scim-tokens lists by name with a cursor; GET /scim-tokens/{name} reads one; neither shows a token', async (t) => {
  const first = await api.call(t, 'GET', '/scim-tokens?limit=1', { token: api.reader });
  t.equal(first.statusCode, 200);
  t.same(
    first.json().items.map((i: { name: string }) => i.name),
    ['entra'],
  );
  const second = await api.call(t, 'GET', `/scim-tokens?limit=1&cursor=${first.json().next_cursor}`, { token: api.reader });
  t.same(
    second.json().items.map((i: { name: string }) => i.name),
    ['okta'],
  );
  t.equal(second.json().next_cursor, null);
  const one = await api.call(t, 'GET', '/scim-tokens/okta', { token: api.reader });
  t.equal(one.statusCode, 200);
  t.same(Object.keys(one.json()).sort(), ['created_at', 'expired', 'expires_at', 'last_used_at', 'name']);
  t.equal((await api.call(t, 'GET', '/scim-tokens/nobody')).statusCode, 404);
  for (const body of [first.body, second.body, one.body]) t.notOk(body.includes('scim_'), 'no token is listed');
});

t.test('admin:read may list but not create or revoke (403)', async (t) => {
  const create = await api.call(t, 'POST', '/scim-tokens', { body: { name: 'sneaky' }, token: api.reader });
  t.equal(create.statusCode, 403);
  const revoke = await api.call(t, 'DELETE', '/scim-tokens/entra', { token: api.reader });
  t.equal(revoke.statusCode, 403);
  t.equal((await api.call(t, 'GET', '/scim-tokens')).json().items.length, 2);
});

t.test('SCIM takes the token; its last use is written at most once a minute', async (t) => {
  const res = await scim(tokens[0]!);
  t.equal(res.statusCode, 200);
  t.equal(res.json().totalResults, 2, 'the fixtures alice and bob');
  const used = (await api.call(t, 'GET', '/scim-tokens/entra')).json().last_used_at as string;
  t.ok(used, 'last_used_at is set');
  await api.db
    .updateTable('scim_tokens')
    .set({ last_used_at: new Date(Date.now() - 30_000) })
    .where('name', '=', 'entra')
    .execute();
  const marked = (await api.db.selectFrom('scim_tokens').select('last_used_at').where('name', '=', 'entra').executeTakeFirstOrThrow())
    .last_used_at;
  t.equal((await scim(tokens[0]!)).statusCode, 200);
  const after = (await api.db.selectFrom('scim_tokens').select('last_used_at').where('name', '=', 'entra').executeTakeFirstOrThrow())
    .last_used_at;
  t.same(after, marked, 'a use 30 s after the last writes nothing');
  api.advance(61);
  t.equal((await scim(tokens[0]!)).statusCode, 200);
  const later = (await api.db.selectFrom('scim_tokens').select('last_used_at').where('name', '=', 'entra').executeTakeFirstOrThrow())
    .last_used_at!;
  t.ok(later.getTime() > marked!.getTime() + 60_000, 'a use a minute later moves it');
});

t.test('a change made over SCIM with the token names it as the actor of its audit record', async (t) => {
  const res = await api.app.inject({
    method: 'POST',
    url: '/scim/v2/Users',
    headers: { authorization: `Bearer ${tokens[0]}`, 'content-type': 'application/scim+json' },
    payload: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'carol@corp.example', active: true }),
  });
  t.equal(res.statusCode, 201);
  const audit = await api.call(t, 'GET', `/audit?target=user:${res.json().id}`);
  t.match(audit.json().items, [{ actor: { kind: 'client', id: 'scim-token:entra' } }]);
});

t.test('an unknown, expired or revoked token is a 401 invalid_token in the SCIM error body', async (t) => {
  const refused = async (token: string, why: string) => {
    const res = await scim(token);
    t.equal(res.statusCode, 401, why);
    t.match(res.headers['www-authenticate'], /error="invalid_token"/);
    t.same(res.json(), { schemas: [ERROR], status: '401', detail: 'the access token is invalid, expired or revoked' }, why);
  };
  await refused(`scim_${'A'.repeat(43)}`, 'unknown');
  await refused(`${tokens[0]!}x`, 'one character more');
  api.advance(90 * 86_400);
  await refused(tokens[1]!, 'expired after its ninety days');
  // The admin's own access token has expired meanwhile (an hour): a new one.
  const writer = await clientToken(api.app, ADMIN_WRITER);
  t.equal((await api.call(t, 'GET', '/scim-tokens/okta', { token: writer })).json().expired, true, 'and listed as expired');
  t.equal((await scim(tokens[0]!)).statusCode, 200, 'one without expiry still works');

  const revoke = await api.call(t, 'DELETE', '/scim-tokens/entra', { token: writer });
  t.equal(revoke.statusCode, 200);
  t.same(revoke.json(), { name: 'entra', revoked: true });
  await refused(tokens[0]!, 'revoked: at once');
  t.equal((await api.call(t, 'DELETE', '/scim-tokens/entra', { token: writer })).statusCode, 404, 'a second revoke finds nothing');
  t.equal((await api.call(t, 'GET', '/scim-tokens/entra', { token: writer })).statusCode, 404);
});

t.test('the audit trail has the create and the revoke, never the token; no log line holds a token', async (t) => {
  const writer = await clientToken(api.app, ADMIN_WRITER);
  const audit = await api.call(t, 'GET', '/audit?target=scim_token:entra', { token: writer });
  t.match(audit.json().items, [
    { event: 'admin.scim_token.revoked', target: { type: 'scim_token', id: 'entra' } },
    { event: 'admin.scim_token.created', changes: { expires_at: null, token: '(not recorded)' } },
  ]);
  const okta = await api.call(t, 'GET', '/audit?target=scim_token:okta', { token: writer });
  t.match(okta.json().items, [{ event: 'admin.scim_token.created', changes: { expires_at: String } }]);
  const events = lines.map((l) => JSON.parse(l) as { event?: string }).map((l) => l.event);
  t.ok(events.includes('admin.scim_token.created') && events.includes('admin.scim_token.revoked'), 'both actions are logged');
  for (const token of tokens) {
    t.notOk(audit.body.includes(token) || okta.body.includes(token), 'not in the audit trail');
    t.notOk(
      lines.some((l) => l.includes(token)),
      'not in any log line',
    );
    t.notOk(
      lines.some((l) => l.includes(token.slice(5, 20))),
      'nor a part of it',
    );
  }
});
