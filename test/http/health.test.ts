// GET /healthz (the process answers, no database) and GET /readyz (database answering, migrations current, signing
// keys loaded, not shutting down), each failure named in a small body that never carries a database message.
import net from 'node:net';
import pg from 'pg';
import pino from 'pino';
import { sql } from 'kysely';
import t, { type Test } from 'tap';
import { buildApp } from '../../src/app.js';
import { readinessProbe, type Lifecycle } from '../../src/domain/readiness.js';
import { openDatabase } from '../../src/storage/database.js';
import { migrateToLatest, shippedMigrations } from '../../src/storage/migrate.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, onServer, type TestDatabase } from '../helpers/database.js';

interface HealthApp {
  app: Awaited<ReturnType<typeof buildApp>>;
  database: TestDatabase;
  lifecycle: Lifecycle;
}

/** The app on a database of its own, with a lifecycle the test can flip; the database may be closed by the test. */
async function healthApp(t: Test, env: Record<string, string> = {}): Promise<HealthApp> {
  const database = await createTestDatabase();
  const lifecycle: Lifecycle = { shuttingDown: false };
  const app = await buildApp(testConfig(env), { db: database.handle.db, logger: pino({ level: 'silent' }), lifecycle });
  await app.ready();
  t.teardown(async () => {
    await app.close();
    await database.drop();
  });
  return { app, database, lifecycle };
}

const readyz = (app: HealthApp['app']) => app.inject({ method: 'GET', url: '/readyz' });

// One app for the tests that change nothing lasting (each puts back what it changes); the others build their own.
const shared = await healthApp(t);
// Another whose database is closed, for the two tests about a database that is gone.
const gone = await healthApp(t);
await gone.database.handle.close();

async function until<T>(ms: number, probe: () => Promise<T | undefined>): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

t.test('/healthz answers 200 with a small JSON body and no-store', async (t) => {
  const { app } = shared;
  const res = await app.inject({ method: 'GET', url: '/healthz' });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { status: 'ok' });
  t.equal(res.headers['cache-control'], 'no-store');
  t.match(res.headers['content-type'], /^application\/json/);
});

t.test('/healthz still answers 200 when the database is gone: it does not touch it', async (t) => {
  const { app } = gone;
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
  t.equal((await readyz(app)).statusCode, 503, 'while /readyz does notice');
});

t.test('/readyz answers 200 on a migrated database with its signing keys loaded', async (t) => {
  const { app } = shared;
  const res = await readyz(app);
  t.equal(res.statusCode, 200);
  t.same(res.json(), { status: 'ready' });
  t.equal(res.headers['cache-control'], 'no-store');
});

t.test('the probes live at the root, not under the issuer', async (t) => {
  const { app } = shared;
  t.equal((await app.inject({ method: 'GET', url: '/sso/healthz' })).statusCode, 404);
  t.equal((await app.inject({ method: 'GET', url: '/sso/readyz' })).statusCode, 404);
});

t.test('/readyz answers 503 naming the database when the database is closed, and says nothing more', async (t) => {
  const { app } = gone;
  const res = await readyz(app);
  t.equal(res.statusCode, 503);
  t.equal(res.body, '{"status":"not_ready","failed":"database"}', 'the body is exactly the failing check');
  t.equal(res.headers['cache-control'], 'no-store');
});

t.test(
  'on PostgreSQL, /readyz fails while the database refuses connections and recovers by itself',
  { skip: onServer ? false : 'needs TEST_DATABASE_URL: PGlite runs in this process and cannot refuse connections' },
  async (t) => {
    const { app, database } = await healthApp(t);
    const dbName = new URL(database.url!).pathname.slice(1);
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    t.teardown(async () => {
      await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`).catch(() => {});
      await admin.end();
    });
    t.equal((await readyz(app)).statusCode, 200, 'ready before the outage');

    // As a failover or a stopped server would: every session cut, no new one accepted.
    await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName]);
    const down = await readyz(app);
    t.equal(down.statusCode, 503);
    t.same(down.json(), { status: 'not_ready', failed: 'database' });
    t.notMatch(down.body, dbName, 'the database name is not disclosed');
    t.notMatch(down.body, /accepting connections|terminat/i, 'nor its error message');

    await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
    const back = await until(10_000, async () => ((await readyz(app)).statusCode === 200 ? true : undefined));
    t.ok(back, 'ready again once the database accepts connections, with no restart');
  },
);

t.test('/readyz answers 503 naming the migrations when one this build ships with is not applied', async (t) => {
  const { app, database } = shared;
  const latest = shippedMigrations().at(-1)!;
  const { rows } = await sql<{ timestamp: string }>`delete from kysely_migration where name = ${latest} returning timestamp`.execute(
    database.handle.db,
  );
  t.teardown(() =>
    sql`insert into kysely_migration (name, timestamp) values (${latest}, ${rows[0]!.timestamp})`.execute(database.handle.db),
  );
  const res = await readyz(app);
  t.equal(res.statusCode, 503);
  t.same(res.json(), { status: 'not_ready', failed: 'migrations' });
});

t.test('/readyz answers 503 naming the migrations when the database was never migrated', async (t) => {
  const { app, database } = shared;
  await sql`alter table kysely_migration rename to kysely_migration_away`.execute(database.handle.db);
  t.teardown(() => sql`alter table kysely_migration_away rename to kysely_migration`.execute(database.handle.db));
  t.same((await readyz(app)).json(), { status: 'not_ready', failed: 'migrations' });
});

t.test('a database migrated ahead of this build (by a newer version) is still ready', async (t) => {
  const { app, database } = shared;
  await sql`insert into kysely_migration (name, timestamp) values ('29991231000000_from_the_future', now()::text)`.execute(
    database.handle.db,
  );
  t.teardown(() => sql`delete from kysely_migration where name = '29991231000000_from_the_future'`.execute(database.handle.db));
  t.equal((await readyz(app)).statusCode, 200);
  // An instance of this build restarting mid-rollout migrates nothing and starts (Kysely's Migrator would refuse).
  t.same(await migrateToLatest(database.handle.db), { applied: [], newer: ['29991231000000_from_the_future'] });
});

t.test('/readyz answers 503 naming the signing keys once the instance has no key to sign with', async (t) => {
  const { app, database } = await healthApp(t, { KEYS_REFRESH_SECONDS: '1' });
  t.equal((await readyz(app)).statusCode, 200);
  await sql`delete from signing_keys`.execute(database.handle.db);
  // The instance notices at its next reload of the keys (every KEYS_REFRESH_SECONDS).
  const res = await until(5_000, async () => {
    const r = await readyz(app);
    return r.statusCode === 503 ? r : undefined;
  });
  t.ok(res, 'readiness failed within a few reloads');
  t.same(res?.json(), { status: 'not_ready', failed: 'signing_keys' });
});

t.test('/readyz answers 503 shutting_down once shutdown has begun, while /healthz still answers', async (t) => {
  const { app, lifecycle } = shared;
  lifecycle.shuttingDown = true;
  t.teardown(() => {
    lifecycle.shuttingDown = false;
  });
  const res = await readyz(app);
  t.equal(res.statusCode, 503);
  t.same(res.json(), { status: 'not_ready', failed: 'shutting_down' });
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
});

t.test('closing the app marks it as shutting down, for readiness', async (t) => {
  const database = await createTestDatabase();
  t.teardown(() => database.drop());
  const lifecycle: Lifecycle = { shuttingDown: false };
  const app = await buildApp(testConfig(), { db: database.handle.db, logger: pino({ level: 'silent' }), lifecycle });
  await app.ready();
  await app.close();
  t.equal(lifecycle.shuttingDown, true);
});

/**
 * A TCP server that accepts connections and never answers: a database that hangs. Its teardown hangs up before the
 * pool is closed: a pool still connecting to it would wait out its 3 s connection timeout first.
 */
async function silentServer(t: Test): Promise<{ port: number; hangUp: () => void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const hangUp = () => {
    for (const s of sockets) s.destroy();
    server.close();
  };
  t.teardown(hangUp);
  return { port: (server.address() as net.AddressInfo).port, hangUp };
}

const KEYS_LOADED = { signer: () => ({ kid: 'k', alg: 'RS256' as const, privateKey: new Uint8Array() }) };

t.test('a database that does not answer fails readiness after the timeout, not after the pool gives up', async (t) => {
  const { port, hangUp } = await silentServer(t);
  const handle = await openDatabase({ url: `postgres://nobody@127.0.0.1:${port}/nothing`, dataDir: 'memory://', poolMax: 2 });
  t.teardown(async () => {
    hangUp();
    await handle.close().catch(() => {});
  });
  const probe = readinessProbe({ db: handle.db, keys: KEYS_LOADED, lifecycle: { shuttingDown: false }, shipped: ['a'], timeoutMs: 300 });
  const started = Date.now();
  const result = await probe.check();
  const elapsed = Date.now() - started;
  t.same(result, { ready: false, failed: 'database' });
  t.ok(elapsed >= 250 && elapsed < 2000, `answered in ${elapsed} ms (timeout 300 ms; the pool would wait 3000 ms)`);
});

t.test('probes arriving together share one database check', async (t) => {
  const { port, hangUp } = await silentServer(t);
  const handle = await openDatabase({ url: `postgres://nobody@127.0.0.1:${port}/nothing`, dataDir: 'memory://', poolMax: 1 });
  t.teardown(async () => {
    hangUp();
    await handle.close().catch(() => {});
  });
  const probe = readinessProbe({ db: handle.db, keys: KEYS_LOADED, lifecycle: { shuttingDown: false }, shipped: ['a'], timeoutMs: 300 });
  const results = await Promise.all(Array.from({ length: 5 }, () => probe.check()));
  t.same(
    results,
    Array.from({ length: 5 }, () => ({ ready: false, failed: 'database' })),
  );
  t.equal(handle.poolStats().waiting, 0, 'no probe left waiting for the one connection');
});
