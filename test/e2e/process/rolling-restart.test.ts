// A rolling restart under steady load: two server processes on one PostgreSQL database behind a round-robin
// balancer (test/helpers/round-robin-proxy.ts: health-checks /readyz, retries only refused connections). Each
// instance in turn gets SIGTERM, exits, and starts again, while discovery, client_credentials and whole code flows
// (sign-in, code exchange, userinfo, refresh) keep running through the balancer: not one request may fail.
import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import t from 'tap';
import { ALICE, seedDatabase } from '../../helpers/app.js';
import { collect, spawnServer, type Finished } from '../../helpers/child-process.js';
import { createTestDatabase, onServer, type TestDatabase } from '../../helpers/database.js';
import { visitToClient } from '../../helpers/fetch-browser.js';
import { basicAuth } from '../../helpers/flow.js';
import { reportedPort } from '../../helpers/listening.js';
import { RoundRobinProxy } from '../../helpers/round-robin-proxy.js';

const RP = {
  client_id: 'rp',
  client_secret: 'rp-secret-0123456789-abcdef',
  redirect_uris: ['https://rp.example/cb'],
  grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
  scope: 'openid profile email offline_access api:read',
};
const RP_AUTH = basicAuth(RP.client_id, RP.client_secret);

interface Instance {
  child: ChildProcess;
  exited: Promise<Finished>;
}

async function until<T>(what: string, ms: number, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

t.test(
  'a rolling restart of two instances behind a balancer, under steady load, fails no request',
  { skip: onServer ? false : 'needs TEST_DATABASE_URL: two processes cannot open one embedded PGlite database', timeout: 300_000 },
  async (t) => {
    // eslint-disable-next-line prefer-const -- declared before the teardown that drops it, assigned once it exists
    let database: TestDatabase | undefined;
    const running = new Set<Instance>();
    // The instances listen on ports the kernel picks; each is registered with the balancer once it reports its port
    // (a restarted one on a new port), as a service registry tells a real balancer.
    const proxy = new RoundRobinProxy(2);
    t.teardown(async () => {
      for (const instance of running) if (instance.child.exitCode === null) instance.child.kill('SIGKILL');
      await proxy.close();
      await database?.drop();
    });

    database = await createTestDatabase();
    await seedDatabase(database.handle.db, { clients: [RP], users: [ALICE] });

    const proxyPort = await proxy.listen();
    const publicUrl = `http://127.0.0.1:${proxyPort}`;
    const issuer = `${publicUrl}/sso`;

    const refusedEverywhere = await fetch(`${issuer}/.well-known/openid-configuration`);
    t.equal(refusedEverywhere.status, 503, 'with no instance up the balancer answers 503 and counts it: it hides nothing');
    proxy.failures.length = 0;

    const env = {
      DATABASE_URL: database.url!,
      BASE_URL: publicUrl,
      HOST: '127.0.0.1',
      PORT: '0',
      // Info, for the line that reports the port.
      LOG_LEVEL: 'info',
      // Long enough for the balancer's 100 ms health check to see /readyz fail before the listener closes.
      SHUTDOWN_DRAIN_SECONDS: '1',
      // One address (the balancer's) and one fingerprint for every sign-in: the velocity rules are not under test.
      SIGN_IN_IP_FREE_ATTEMPTS: '0',
      RISK_DEVICE_VELOCITY: '1000000',
      RISK_NETWORK_VELOCITY: '1000000',
      KEYS_ENCRYPTION_SECRET: 'rolling-restart-secret-0123456789-ABCDEF',
    };
    const start = async (i: number): Promise<Instance> => {
      const child = await spawnServer(env);
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        // Only the start of the output: the port is in its first lines.
        if (output.length < 100_000) output += chunk.toString();
      });
      const instance = { child, exited: collect(child, 280_000) };
      instance.exited.catch(() => {});
      running.add(instance);
      const port = await until(`instance ${i + 1} to report its port`, 60_000, async () => {
        if (child.exitCode !== null) throw new Error(`instance ${i + 1} exited: ${(await instance.exited).stderr}`);
        return reportedPort(output);
      });
      await until(`instance ${i + 1} on ${port} to be ready`, 60_000, async () => {
        if (child.exitCode !== null) throw new Error(`instance ${i + 1} exited: ${(await instance.exited).stderr}`);
        const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        return res?.status === 200 ? true : undefined;
      });
      proxy.register(i, port);
      return instance;
    };
    const instances = await Promise.all([start(0), start(1)]);
    await until('the balancer to see both instances ready', 5_000, () => (proxy.upstreams.every((u) => u.healthy) ? true : undefined));

    // Steady load: each loop runs until told to stop; a failure is any answer not the expected one, or a throw.
    const failures: string[] = [];
    const completed = { discovery: 0, clientCredentials: 0, codeFlows: 0 };
    let stop = false;
    const loop = async (name: string, body: () => Promise<void>) => {
      while (!stop) {
        try {
          await body();
        } catch (err) {
          failures.push(`${name}: ${(err as Error).message}`);
        }
      }
    };
    const expect = async (res: Response, status: number, what: string) => {
      if (res.status !== status) throw new Error(`${what}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
      return res;
    };
    const discovery = async () => {
      const res = await expect(await fetch(`${issuer}/.well-known/openid-configuration`), 200, 'discovery');
      if (((await res.json()) as { issuer: string }).issuer !== issuer) throw new Error('discovery names another issuer');
      completed.discovery += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
    };
    const tokenRequest = (form: Record<string, string>) =>
      fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { authorization: RP_AUTH, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
    const clientCredentials = async () => {
      const res = await expect(await tokenRequest({ grant_type: 'client_credentials', scope: 'api:read' }), 200, 'client_credentials');
      await res.json();
      completed.clientCredentials += 1;
    };
    const codeFlow = async () => {
      const verifier = randomBytes(32).toString('base64url');
      const url = new URL(`${issuer}/authorize`);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: RP.client_id,
        redirect_uri: RP.redirect_uris[0]!,
        scope: 'openid profile offline_access',
        state: randomBytes(8).toString('hex'),
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      }).toString();
      const answer = await visitToClient(publicUrl, url);
      if (answer.mode !== 'query') throw new Error('no redirect to the client');
      const code = answer.callback.searchParams.get('code');
      if (!code) throw new Error(`no code: ${answer.callback.href}`);
      const tokenRes = await expect(
        await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: RP.redirect_uris[0]!, code_verifier: verifier }),
        200,
        'code exchange',
      );
      const tokens = (await tokenRes.json()) as { access_token: string; refresh_token: string };
      const info = await expect(
        await fetch(`${issuer}/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } }),
        200,
        'userinfo',
      );
      await info.json();
      const refreshed = await expect(
        await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }),
        200,
        'refresh',
      );
      await refreshed.json();
      completed.codeFlows += 1;
    };
    const load = Promise.all([
      loop('discovery', discovery),
      loop('client_credentials', clientCredentials),
      loop('code flow', codeFlow),
      loop('code flow', codeFlow),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    for (const i of [0, 1]) {
      await t.test(`instance ${i + 1} restarts while the other serves`, async (t) => {
        const old = instances[i]!;
        const servedBefore = proxy.upstreams[i]!.served;
        t.ok(servedBefore > 0, `it had served ${servedBefore} requests`);
        old.child.kill('SIGTERM');
        const { code, stdout, stderr } = await old.exited;
        running.delete(old);
        t.equal(code, 0, code === 0 ? 'it exited 0' : `it exited ${code}: ${stdout.slice(-2000)} ${stderr.slice(-2000)}`);
        instances[i] = await start(i);
        const servedAtRestart = proxy.upstreams[i]!.served;
        await until('the restarted instance to take requests again', 20_000, () =>
          proxy.upstreams[i]!.served > servedAtRestart + 10 ? true : undefined,
        );
        t.pass(`the restarted instance serves again (${proxy.upstreams[i]!.served - servedAtRestart} requests so far)`);
      });
    }

    await new Promise((resolve) => setTimeout(resolve, 1_000));
    stop = true;
    await load;
    t.same(failures, [], 'no request failed at the clients');
    t.same(proxy.failures, [], 'no request failed at the balancer');
    t.ok(
      completed.codeFlows >= 4,
      `${completed.codeFlows} whole code flows, ${completed.clientCredentials} client_credentials tokens, ${completed.discovery} discoveries`,
    );
    t.comment(`refused connections retried on the other instance: ${proxy.retriedRefused}`);

    for (const instance of instances) {
      instance.child.kill('SIGTERM');
      t.equal((await instance.exited).code, 0);
      running.delete(instance);
    }
  },
);
