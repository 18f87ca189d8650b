// WORKERS > 1: node:cluster workers share the port, each a whole instance on the shared PostgreSQL database;
// the primary stops them all on SIGTERM.
import t from 'tap';
import { loadConfig, ConfigError } from '../../../src/config.js';
import { collect, spawnServer } from '../../helpers/child-process.js';
import { createTestDatabase, onServer } from '../../helpers/database.js';
import { forwardedPort, reportedPort } from '../../helpers/listening.js';

t.test('WORKERS above 1 is refused on the embedded database, by name', async (t) => {
  t.throws(() => loadConfig({ WORKERS: '2' }), ConfigError);
  t.throws(() => loadConfig({ WORKERS: '2' }), /WORKERS above 1 needs DATABASE_URL/);
  t.equal(loadConfig({ WORKERS: '2', DATABASE_URL: 'postgres://u@127.0.0.1/db' }).workers, 2);
});

t.test(
  'two workers serve one port, and SIGTERM to the primary stops them all',
  { skip: onServer ? false : 'needs TEST_DATABASE_URL: workers share a PostgreSQL database' },
  async (t) => {
    const database = await createTestDatabase({ migrate: false });
    t.teardown(() => database.drop());
    // The workers share one port the kernel picks (port 0 under node:cluster); BASE_URL names a port held here and
    // forwarded to the one they report.
    const forwarded = await forwardedPort(t);
    const baseUrl = `http://127.0.0.1:${forwarded.port}`;
    const primary = await spawnServer({
      HOST: '127.0.0.1',
      PORT: '0',
      BASE_URL: baseUrl,
      DATABASE_URL: database.url!,
      WORKERS: '2',
    });
    const finished = collect(primary, 150_000);
    let output = '';
    primary.stdout!.on('data', (d: Buffer | string) => {
      output += d.toString();
      const reported = reportedPort(output);
      if (reported !== undefined) forwarded.forwardTo(reported);
    });
    t.teardown(() => {
      if (primary.exitCode === null && primary.signalCode === null) primary.kill('SIGKILL');
    });

    const readyPids = async () => {
      // Workers log through the shared stdout of the primary.
      const deadline = Date.now() + 60_000;
      for (;;) {
        // Bounded: after a reset from the held port (the workers not yet listening), fetch's pool has been seen to
        // keep the next request pending with no connection (npm-start.test.ts).
        const res = await fetch(`${baseUrl}/sso/.well-known/openid-configuration`, { signal: AbortSignal.timeout(5_000) }).catch(
          () => undefined,
        );
        if (res?.ok && ((await res.json()) as { issuer?: string }).issuer === `${baseUrl}/sso`) break;
        if (Date.now() > deadline) throw new Error('no worker answered within 60 s');
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    await readyPids();
    // The second worker can start well after the first on a loaded machine: wait until both have logged that they
    // are ready, then keep asking until requests have reached both.
    const readyWorkers = () => new Set([...output.matchAll(/"pid":(\d+)[^\n]*ready on/g)].map((m) => m[1]));
    for (const waitUntil = Date.now() + 90_000; readyWorkers().size < 2 && Date.now() < waitUntil;) {
      await new Promise((r) => setTimeout(r, 200));
    }
    t.equal(readyWorkers().size, 2, 'both workers logged that they are ready');
    const served = new Set<string>();
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      await Promise.all(Array.from({ length: 20 }, () => fetch(`${baseUrl}/sso/jwks`).then((r) => r.text())));
      for (const m of output.matchAll(/"pid":(\d+)[^\n]*"path":"\/sso\/jwks"/g)) served.add(m[1]!);
      if (served.size >= 2) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    t.equal(served.size, 2, `requests were served by two worker processes (${[...served].join(', ')})`);
    t.notOk(served.has(String(primary.pid)), 'the primary serves nothing itself');

    primary.kill('SIGTERM');
    const result = await finished;
    t.equal(result.code, 0, 'the primary exits cleanly once its workers have');
    t.equal((result.stdout.match(/"msg":"shutting down"/g) ?? []).length, 2, 'each worker shut down gracefully');
  },
);
