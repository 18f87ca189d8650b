// SIGTERM and SIGINT on a real server process: a request in flight completes (with Connection: close), new
// connections are refused, the process exits 0; SHUTDOWN_TIMEOUT_SECONDS cuts what is left; SHUTDOWN_DRAIN_SECONDS
// keeps serving with /readyz at 503 first; METRICS_PORT; WORKERS > 1 stops the same way through the primary.
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import t, { type Test } from 'tap';
import { basicAuth } from '../../helpers/flow.js';
import { seedDatabase, seedDataFolder } from '../../helpers/app.js';
import { collect, spawnServer, type Finished } from '../../helpers/child-process.js';
import { createTestDatabase, migratedDataFolder, onServer } from '../../helpers/database.js';
import { reportedPort } from '../../helpers/listening.js';

const SERVICE = {
  client_id: 'service',
  client_secret: 'service-secret-0123456789',
  grant_types: ['client_credentials'],
  scope: 'api:read',
};
const TOKEN_BODY = 'grant_type=client_credentials&scope=api%3Aread';

interface Server {
  child: ChildProcess;
  port: number;
  /** With METRICS_PORT=0: the port its metrics listener reports. */
  metricsPort: number | undefined;
  logs: Array<Record<string, unknown>>;
  exited: Promise<Finished>;
}

/**
 * Starts the built server on 127.0.0.1, port 0, and resolves once it is ready, with the port it reports (requests go
 * there directly; the issuer names no port) and, with METRICS_PORT=0, the metrics listener's. SIGKILLed (by pid) in
 * teardown if still running.
 */
async function startServer(t: Test, env: Record<string, string>): Promise<Server> {
  // Both listeners log Fastify's start line: the main port is the one that is not the metrics listener's.
  const reported: number[] = [];
  let metricsPort: number | undefined;
  const child = await spawnServer({ HOST: '127.0.0.1', PORT: '0', BASE_URL: 'http://127.0.0.1', ...env });
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const logs: Array<Record<string, unknown>> = [];
  let buffered = '';
  let readyCount = 0;
  const wanted = Number(env.WORKERS ?? '1');
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        try {
          const entry = JSON.parse(line) as Record<string, unknown>;
          logs.push(entry);
          const port = typeof entry.msg === 'string' ? reportedPort(entry.msg) : undefined;
          if (port !== undefined) reported.push(port);
          if (typeof entry.metrics === 'string') metricsPort = Number(new URL(entry.metrics).port);
          if (typeof entry.msg === 'string' && entry.msg.includes(' ready on ')) readyCount += 1;
          // The primary of WORKERS > 1 may log its metrics listener after its workers are ready.
          if (readyCount >= wanted && (env.METRICS_PORT === undefined || metricsPort !== undefined)) resolve();
        } catch {
          logs.push({ unparsed: line });
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before it was ready: ${JSON.stringify(logs)}`)));
  });
  const exited = collect(child, 170_000);
  exited.catch(() => {});
  await ready;
  const port = reported.filter((p) => p !== metricsPort).at(-1);
  if (port === undefined) throw new Error(`the server reported no port: ${JSON.stringify(logs)}`);
  return { child, port, metricsPort, logs, exited };
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const logged = (server: Server, msg: string) => server.logs.find((l) => l.msg === msg);

/** Resolves 'refused' or 'connected' for a fresh TCP connection to the port. */
function connectOutcome(port: number): Promise<'refused' | 'connected'> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNREFUSED' ? resolve('refused') : reject(err)));
  });
}

interface SlowRequest {
  /** Sends the rest of the body. */
  finish(): void;
  response: Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>;
}

/** A token request whose body arrives in two parts: in flight on the server from its first part on. */
async function slowTokenRequest(port: number): Promise<SlowRequest> {
  const request = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/sso/token',
    agent: false,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': String(Buffer.byteLength(TOKEN_BODY)),
      authorization: basicAuth(SERVICE.client_id, SERVICE.client_secret),
    },
  });
  const response = new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    request.once('error', reject);
    request.once('response', (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.once('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      res.once('error', reject);
    });
  });
  response.catch(() => {});
  await new Promise<void>((resolve) => request.once('socket', (socket) => socket.once('connect', () => resolve())));
  request.write(TOKEN_BODY.slice(0, 10));
  // Headers and the first bytes reach the server's parser: the request is in flight.
  await new Promise((resolve) => setTimeout(resolve, 300));
  return { finish: () => request.end(TOKEN_BODY.slice(10)), response };
}

async function seededDataDir(t: Test): Promise<string> {
  const dir = await migratedDataFolder(t);
  await seedDataFolder(dir, { clients: [SERVICE], users: [] });
  return dir;
}

t.test(
  'SIGTERM: the request in flight completes with Connection: close, new connections are refused, and the process exits 0',
  async (t) => {
    const server = await startServer(t, { DATA_DIR: await seededDataDir(t) });
    const slow = await slowTokenRequest(server.port);

    server.child.kill('SIGTERM');
    t.equal(
      await until('the listener to close', 5_000, async () => ((await connectOutcome(server.port)) === 'refused' ? 'refused' : undefined)),
      'refused',
      'a new connection is refused',
    );
    t.equal(server.child.exitCode, null, 'the process waits for the request in flight');

    slow.finish();
    const { status, headers, body } = await slow.response;
    t.equal(status, 200, body);
    t.ok((JSON.parse(body) as { access_token?: string }).access_token, 'the token was issued');
    t.equal(headers.connection, 'close', 'Connection: close, so the client reconnects elsewhere');

    const { code } = await server.exited;
    t.equal(code, 0, 'exit code 0');
    t.match(logged(server, 'shutting down'), { signal: 'SIGTERM', drainSeconds: 0, timeoutSeconds: 10 });
    t.match(logged(server, 'stopped'), { exitCode: 0 });
  },
);

t.test('a request still in flight after SHUTDOWN_TIMEOUT_SECONDS is cut, and the process exits 1', async (t) => {
  const server = await startServer(t, { DATA_DIR: await seededDataDir(t), SHUTDOWN_TIMEOUT_SECONDS: '1' });
  const slow = await slowTokenRequest(server.port);
  const signalled = Date.now();
  server.child.kill('SIGTERM');
  const { code } = await server.exited;
  const took = Date.now() - signalled;
  t.equal(code, 1, 'exit code 1: a request was cut');
  t.ok(took >= 900 && took < 8000, `stopped ${took} ms after the signal (timeout 1 s)`);
  await t.rejects(slow.response, 'the unfinished request got no answer');
  t.ok(logged(server, 'requests still in flight after SHUTDOWN_TIMEOUT_SECONDS; closing their connections'));
});

t.test(
  'SIGINT with SHUTDOWN_DRAIN_SECONDS: /readyz fails at once while requests are still served with Connection: close, then the listener closes',
  async (t) => {
    const dir = await migratedDataFolder(t);
    const server = await startServer(t, { DATA_DIR: dir, SHUTDOWN_DRAIN_SECONDS: '3' });
    const base = `http://127.0.0.1:${server.port}`;
    t.equal((await fetch(`${base}/readyz`)).status, 200, 'ready before the signal');

    const signalled = Date.now();
    server.child.kill('SIGINT');
    const notReady = await until('/readyz to fail', 2_000, async () => {
      const res = await fetch(`${base}/readyz`);
      return res.status === 503 ? res : undefined;
    });
    t.same(await notReady.json(), { status: 'not_ready', failed: 'shutting_down' });
    t.ok(Date.now() - signalled < 2_000, 'within moments of the signal');

    const discovery = await fetch(`${base}/sso/.well-known/openid-configuration`);
    t.equal(discovery.status, 200, 'still served while draining');
    t.equal(discovery.headers.get('connection'), 'close');
    t.equal((await fetch(`${base}/healthz`)).status, 200, 'and alive');

    await until('the listener to close', 8_000, async () => ((await connectOutcome(server.port)) === 'refused' ? true : undefined));
    t.ok(Date.now() - signalled >= 2_900, 'not before the drain time');
    t.equal((await server.exited).code, 0);
    t.match(logged(server, 'shutting down'), { signal: 'SIGINT', drainSeconds: 3 });
  },
);

t.test('with METRICS_PORT, a server process serves /metrics there only, and closes it on SIGTERM', async (t) => {
  const dir = await migratedDataFolder(t);
  const server = await startServer(t, { DATA_DIR: dir, METRICS_PORT: '0', METRICS_HOST: '127.0.0.1' });
  const metricsPort = server.metricsPort!;
  t.ok(metricsPort > 0 && metricsPort !== server.port, 'the metrics listener reports a port of its own');
  await fetch(`http://127.0.0.1:${server.port}/sso/jwks`);
  const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  t.equal(metrics.status, 200);
  t.match(await metrics.text(), /sso_http_request_duration_seconds_count\{method="GET",route="\/sso\/jwks",status_code="200"\} 1/);
  t.equal((await fetch(`http://127.0.0.1:${server.port}/metrics`)).status, 404, 'not on the main port');
  server.child.kill('SIGTERM');
  t.equal((await server.exited).code, 0);
  t.equal(await connectOutcome(metricsPort), 'refused', 'the metrics listener is closed too');
});

t.test(
  'WORKERS=2: SIGTERM to the primary lets a request in flight complete, and METRICS_PORT sums the workers',
  { skip: onServer ? false : 'needs TEST_DATABASE_URL: workers share a PostgreSQL database' },
  async (t) => {
    const database = await createTestDatabase();
    t.teardown(() => database.drop());
    await seedDatabase(database.handle.db, { clients: [SERVICE], users: [] });

    const server = await startServer(t, {
      DATABASE_URL: database.url!,
      WORKERS: '2',
      METRICS_PORT: '0',
      METRICS_HOST: '127.0.0.1',
    });
    const metricsPort = server.metricsPort!;
    t.ok(metricsPort > 0 && metricsPort !== server.port, 'the primary reports the metrics port apart from the shared one');
    const base = `http://127.0.0.1:${server.port}`;
    // Enough requests that both workers serve some (the primary hands connections out in turn).
    await Promise.all(
      Array.from({ length: 20 }, () => fetch(`${base}/sso/jwks`, { headers: { connection: 'close' } }).then((r) => r.text())),
    );
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    t.match(
      text,
      /sso_http_request_duration_seconds_count\{method="GET",route="\/sso\/jwks",status_code="200"\} 20\b/,
      'the primary reports both workers, summed',
    );

    const slow = await slowTokenRequest(server.port);
    server.child.kill('SIGTERM');
    await until('the shared listener to close', 10_000, async () => ((await connectOutcome(server.port)) === 'refused' ? true : undefined));
    slow.finish();
    const { status, body } = await slow.response;
    t.equal(status, 200, body);
    const { code } = await server.exited;
    t.equal(code, 0, 'the primary exits 0 once every worker has');
    t.equal(server.logs.filter((l) => l.msg === 'stopped' && l.exitCode === 0).length, 2, 'each worker stopped cleanly');
  },
);
