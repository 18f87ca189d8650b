// A lost database connection is answered with 503 temporarily_unavailable (RFC 6749 4.1.2.1), never a crash
// or a 500, and the provider recovers by itself once the database answers again.
import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import pg from 'pg';
import pino from 'pino';
import t, { type Test } from 'tap';
import errorHandler from '../../src/http/plugins/error-handler.js';
import { isDatabaseUnavailable, isUniqueViolation } from '../../src/storage/database-errors.js';
import { buildTestApp } from '../helpers/app.js';
import { onServer } from '../helpers/database.js';
import { obtainCode, tokenRequest } from '../helpers/flow.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

t.test('isDatabaseUnavailable recognises a refused or lost connection', async (t) => {
  t.ok(isDatabaseUnavailable(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')), 'ECONNREFUSED');
  t.ok(isDatabaseUnavailable(withCode('read ECONNRESET', 'ECONNRESET')), 'ECONNRESET');
  t.ok(isDatabaseUnavailable(withCode('terminating connection due to administrator command', '57P01')), 'SQLSTATE 57P01');
  t.ok(isDatabaseUnavailable(withCode('the database system is starting up', '57P03')), 'SQLSTATE 57P03');
  t.ok(isDatabaseUnavailable(withCode('connection failure', '08006')), 'SQLSTATE 08006');
  t.ok(isDatabaseUnavailable(withCode('sorry, too many clients already', '53300')), 'SQLSTATE 53300');
  t.ok(
    isDatabaseUnavailable(withCode('cannot execute INSERT in a read-only transaction', '25006')),
    'SQLSTATE 25006: a write that reached a server still in recovery, as during a failover',
  );
  t.ok(isDatabaseUnavailable(new Error('Connection terminated unexpectedly')), "pg's 'Connection terminated unexpectedly'");
  t.ok(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect')), "pg-pool's connection timeout");
});

t.test('isDatabaseUnavailable follows the cause chain', async (t) => {
  const wrapped = new Error('query failed', { cause: withCode('connect ECONNREFUSED', 'ECONNREFUSED') });
  t.ok(isDatabaseUnavailable(wrapped));
  t.ok(isDatabaseUnavailable(new Error('outer', { cause: wrapped })));
});

t.test('isDatabaseUnavailable is false for every other database error', async (t) => {
  const unique = withCode('duplicate key value violates unique constraint "users_email_key"', '23505');
  t.notOk(isDatabaseUnavailable(unique), 'unique violation 23505');
  t.ok(isUniqueViolation(unique));
  t.notOk(isDatabaseUnavailable(withCode('syntax error at or near "selec"', '42601')), 'syntax error 42601');
  t.notOk(isDatabaseUnavailable(withCode('relation "nope" does not exist', '42P01')), 'undefined table 42P01');
  t.notOk(isDatabaseUnavailable(withCode('value too long', '22001')), 'data exception 22001');
  t.notOk(isDatabaseUnavailable(new Error('boom')), 'a plain Error');
  t.notOk(isDatabaseUnavailable({ code: 'ECONNREFUSED' }), 'a thrown non-Error');
  t.notOk(isDatabaseUnavailable(undefined));
  t.notOk(isUniqueViolation(withCode('syntax error', '42601')));
});

interface TinyApp {
  app: FastifyInstance;
  logs: () => Array<Record<string, unknown>>;
}

/** The real error handler on a bare Fastify app whose routes throw what they are given. */
async function tinyApp(t: Test, thrown: () => unknown): Promise<TinyApp> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const logger: FastifyBaseLogger = pino({ level: 'info' }, sink);
  const app = Fastify({ loggerInstance: logger });
  await app.register(errorHandler);
  app.get('/api', async () => {
    throw thrown();
  });
  app.get('/page', { config: { html: true } }, async () => {
    throw thrown();
  });
  await app.ready();
  t.teardown(() => app.close());
  return { app, logs: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

t.test('a refused database connection is answered 503 temporarily_unavailable with Retry-After', async (t) => {
  const { app, logs } = await tinyApp(t, () => withCode('connect ECONNREFUSED 10.0.0.9:5432', 'ECONNREFUSED'));
  const res = await app.inject({ method: 'GET', url: '/api' });
  t.equal(res.statusCode, 503);
  t.equal(res.headers['retry-after'], '1');
  t.equal(res.headers['cache-control'], 'no-store');
  t.same(res.json(), {
    error: 'temporarily_unavailable',
    error_description: 'the service is temporarily unavailable, try again shortly',
  });
  t.notMatch(res.body, '10.0.0.9', 'the database address is not disclosed');
  t.match(
    logs().filter((l) => l.msg === 'request failed'),
    [{ level: 50, err: { message: 'connect ECONNREFUSED 10.0.0.9:5432', code: 'ECONNREFUSED' } }],
    'the cause is logged',
  );
});

t.test('a terminated connection (SQLSTATE 57P01) is answered 503 as well', async (t) => {
  const { app } = await tinyApp(t, () => withCode('terminating connection due to administrator command', '57P01'));
  const res = await app.inject({ method: 'GET', url: '/api' });
  t.equal(res.statusCode, 503);
  t.equal(res.json().error, 'temporarily_unavailable');
  t.equal(res.headers['retry-after'], '1');
});

t.test('a page route answers an unavailable database with a 503 page and Retry-After', async (t) => {
  const { app } = await tinyApp(t, () => new Error('Connection terminated unexpectedly'));
  const res = await app.inject({ method: 'GET', url: '/page' });
  t.equal(res.statusCode, 503);
  t.equal(res.headers['retry-after'], '1');
  t.match(res.headers['content-type'], /^text\/html/);
  t.match(res.body, 'the service is temporarily unavailable, try again shortly');
  t.notMatch(res.body, 'Connection terminated');
});

t.test('any other error is a 500 server_error that discloses neither message nor stack', async (t) => {
  const { app, logs } = await tinyApp(t, () => new Error('secret detail: password=hunter2 in /srv/app/db.ts'));
  const res = await app.inject({ method: 'GET', url: '/api' });
  t.equal(res.statusCode, 500);
  t.same(res.json(), { error: 'server_error', error_description: 'the server could not complete the request' });
  t.notMatch(res.body, 'hunter2');
  t.notMatch(res.body, 'secret detail');
  t.notMatch(res.body, /\bat .*\.ts:\d+/, 'no stack frame');
  t.notMatch(res.body, 'stack');
  t.equal(res.headers['retry-after'], undefined, 'no Retry-After on a 500');
  const [logged] = logs().filter((l) => l.msg === 'request failed');
  t.match(
    logged,
    { level: 50, err: { message: 'secret detail: password=hunter2 in /srv/app/db.ts', stack: /at / } },
    'the log keeps the cause and stack',
  );
});

t.test('a unique violation that escapes is a 500, not a 503', async (t) => {
  const { app } = await tinyApp(t, () => withCode('duplicate key value violates unique constraint "users_email_key"', '23505'));
  const res = await app.inject({ method: 'GET', url: '/api' });
  t.equal(res.statusCode, 500);
  t.equal(res.json().error, 'server_error');
  t.notMatch(res.body, 'users_email_key');
});

t.test('a thrown non-Error value is a 500 server_error', async (t) => {
  const { app } = await tinyApp(t, () => 'a string');
  const res = await app.inject({ method: 'GET', url: '/api' });
  t.equal(res.statusCode, 500);
  t.equal(res.json().error, 'server_error');
});

/** Terminates every other session on `dbName`, as a failover or a DBA's pg_terminate_backend would. */
async function terminateBackends(admin: pg.Client, dbName: string): Promise<number> {
  const result = await admin.query<{ pid: number }>(
    'SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [dbName],
  );
  return result.rowCount ?? 0;
}

const NEEDS_SERVER = onServer ? false : 'needs TEST_DATABASE_URL: PGlite runs in this process and has no connection to lose';

t.test(
  'a dropped database connection gives 503 temporarily_unavailable, never a crash, and recovers by itself',
  { skip: NEEDS_SERVER },
  async (t) => {
    const { app, database } = await buildTestApp(t);
    const dbName = new URL(database.url!).pathname.slice(1);
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    t.teardown(() => admin.end());

    // Tokens and spare codes issued before the outage.
    const first = await obtainCode(app);
    const issued = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code: first.code,
      redirect_uri: first.redirectUri,
      code_verifier: first.verifier,
    });
    t.equal(issued.statusCode, 200, issued.body);
    const accessToken = issued.json().access_token as string;
    const spare = await Promise.all([obtainCode(app), obtainCode(app), obtainCode(app)]);

    const userinfo = () => app.inject({ method: 'GET', url: '/sso/userinfo', headers: { authorization: `Bearer ${accessToken}` } });
    const unknownCode = () =>
      tokenRequest(app, {
        grant_type: 'authorization_code',
        code: 'no-such-code',
        redirect_uri: first.redirectUri,
        code_verifier: first.verifier,
      });
    const exchange = (c: (typeof spare)[number]) =>
      tokenRequest(app, { grant_type: 'authorization_code', code: c.code, redirect_uri: c.redirectUri, code_verifier: c.verifier });

    // Fill the pool with open connections, so that the outage hits connections the pool believes idle.
    await Promise.all(Array.from({ length: 8 }, userinfo));

    const seen = new Map<string, number>();
    const check = (label: string, res: Awaited<ReturnType<typeof userinfo>>, normal: number[]) => {
      seen.set(`${label} ${res.statusCode}`, (seen.get(`${label} ${res.statusCode}`) ?? 0) + 1);
      if (res.statusCode === 503) {
        t.same(
          res.json(),
          { error: 'temporarily_unavailable', error_description: 'the service is temporarily unavailable, try again shortly' },
          `${label}: 503 body`,
        );
        t.equal(res.headers['retry-after'], '1', `${label}: Retry-After`);
      } else {
        t.ok(normal.includes(res.statusCode), `${label}: ${res.statusCode} is a normal answer (${res.body.slice(0, 120)})`);
      }
    };

    // Requests in flight while the connections are cut, and right after.
    const inFlight = [...Array.from({ length: 6 }, userinfo), ...Array.from({ length: 4 }, unknownCode), ...spare.map(exchange)];
    const terminated = await terminateBackends(admin, dbName);
    const after = [...Array.from({ length: 6 }, userinfo), ...Array.from({ length: 4 }, unknownCode)];
    const settled = await Promise.all([...inFlight, ...after]);
    t.ok(terminated > 0, `${terminated} backends were terminated`);

    settled.slice(0, 6).forEach((r) => check('userinfo', r, [200]));
    settled.slice(6, 10).forEach((r) => check('token (unknown code)', r, [400]));
    settled.slice(10, 13).forEach((r) => check('token (exchange)', r, [200]));
    settled.slice(13, 19).forEach((r) => check('userinfo', r, [200]));
    settled.slice(19).forEach((r) => check('token (unknown code)', r, [400]));
    for (const r of settled.filter((r) => r.statusCode === 400)) t.equal(r.json().error, 'invalid_grant', 'a 400 is invalid_grant');

    // A second cut, with the pool busy: a burst of requests and a termination racing each other.
    const burst = Array.from({ length: 10 }, (_, i) => (i % 2 ? userinfo() : unknownCode()));
    await terminateBackends(admin, dbName);
    for (const [i, r] of (await Promise.all(burst)).entries()) check(i % 2 ? 'userinfo' : 'token (unknown code)', r, i % 2 ? [200] : [400]);
    t.comment(`answers during the outages: ${JSON.stringify(Object.fromEntries(seen))}`);

    // Recovery: no restart, no intervention; within about 5 s the same requests succeed again.
    const deadline = Date.now() + 5000;
    let recovered = false;
    while (!recovered && Date.now() < deadline) {
      const [info, token] = await Promise.all([userinfo(), unknownCode()]);
      recovered = info.statusCode === 200 && token.statusCode === 400;
      if (!recovered) await new Promise((r) => setTimeout(r, 200));
    }
    t.ok(recovered, 'requests succeed again by themselves');
    const info = await userinfo();
    t.equal(info.statusCode, 200, info.body);
    t.equal(info.json().email, 'alice@example.com');
    const fresh = await obtainCode(app);
    const res = await exchange(fresh);
    t.equal(res.statusCode, 200, `a whole new sign-in and exchange work after the outage: ${res.body.slice(0, 200)}`);
  },
);

t.test(
  'a write that reaches a server in read-only mode (a standby mid-promotion) is a 503 temporarily_unavailable that stores nothing',
  { skip: NEEDS_SERVER },
  async (t) => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const { app, database } = await buildTestApp(t, { logger: pino({ level: 'error' }, sink) });
    const dbName = new URL(database.url!).pathname.slice(1);
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    t.teardown(() => admin.end());
    const code = await obtainCode(app);
    const exchange = () =>
      tokenRequest(app, {
        grant_type: 'authorization_code',
        code: code.code,
        redirect_uri: code.redirectUri,
        code_verifier: code.verifier,
      });

    // New sessions on this database start read-only, as on a standby; the pool's sessions are cut so that it opens new ones.
    await admin.query(`ALTER DATABASE "${dbName}" SET default_transaction_read_only = on`);
    await terminateBackends(admin, dbName);
    const sawReadOnly = () => lines.some((l) => (JSON.parse(l) as { err?: { code?: string } }).err?.code === '25006');
    // The first tries may meet the pooled connections cut above (a 503 for another cause); the next reach new sessions,
    // which are read-only.
    const refused = [await exchange(), await exchange()];
    for (const deadline = Date.now() + 5000; !sawReadOnly() && Date.now() < deadline;) refused.push(await exchange());
    for (const res of refused) {
      t.equal(res.statusCode, 503, res.body);
      t.equal(res.json().error, 'temporarily_unavailable');
      t.equal(res.headers['retry-after'], '1');
    }
    t.ok(sawReadOnly(), 'the read-only refusal (SQLSTATE 25006) was among the causes');

    await admin.query(`ALTER DATABASE "${dbName}" RESET default_transaction_read_only`);
    await terminateBackends(admin, dbName);
    // The first tries may meet pooled connections cut above, before the pool has seen them go.
    let res = await exchange();
    for (const deadline = Date.now() + 5000; res.statusCode === 503 && Date.now() < deadline; res = await exchange()) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    t.equal(res.statusCode, 200, `the code refused while read-only redeems once writes are taken again: ${res.body.slice(0, 200)}`);
  },
);
