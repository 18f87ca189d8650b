// The real entry point as an operator runs it: `node dist/server.js` (what `npm start` runs, built from this checkout).
// Start log, discovery over HTTP, clean SIGTERM, refused settings, kill -9 durability, one process per data folder.
import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { seedDataFolder } from '../../helpers/app.js';
import { basicAuth, formEncode } from '../../helpers/flow.js';
import { collect, runServer, spawnServer, type Finished } from '../../helpers/child-process.js';
import { createTestDatabase, migratedDataFolder, onServer } from '../../helpers/database.js';
import { forwardedPort, reportedPort, UNREACHED_SERVER_ENV, type ForwardedPort } from '../../helpers/listening.js';

const CLIENT = {
  client_id: 'rp',
  client_secret: 'rp-secret: with+plus %and spaces',
  redirect_uris: ['https://rp.example/cb'],
};
const USER = { username: 'alice', password: 'wonderland-rabbit-hole', email: 'alice@example.com', name: 'Alice' };

interface RunningServer {
  child: ChildProcess;
  pid: number;
  baseUrl: string;
  issuer: string;
  /** Every pino line the server has written to stdout so far. */
  logs: Array<Record<string, unknown>>;
  /** The whole output once the process has exited. */
  exited: Promise<Finished>;
}

async function tempDir(t: Test): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sso-server-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Starts the built server on port 0 and resolves once it logs that it is ready; its BASE_URL names `forwarded`, a
 * port held here (the same one again for a restart), forwarded to the port it reports. Killed (by its pid) in
 * teardown if the test has not stopped it.
 */
async function startServer(t: Test, env: Record<string, string>, forwarded?: ForwardedPort): Promise<RunningServer> {
  const held = forwarded ?? (await forwardedPort(t));
  const baseUrl = `http://127.0.0.1:${held.port}`;
  const child = await spawnServer({ HOST: '127.0.0.1', PORT: '0', BASE_URL: baseUrl, ...env });
  const pid = child.pid!;
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const logs: Array<Record<string, unknown>> = [];
  let buffered = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) !== -1) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        try {
          const entry = JSON.parse(line) as Record<string, unknown>;
          logs.push(entry);
          const reported = typeof entry.msg === 'string' ? reportedPort(entry.msg) : undefined;
          if (reported !== undefined) held.forwardTo(reported);
          if (typeof entry.msg === 'string' && / ready on /.test(entry.msg)) resolve();
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
  return { child, pid, baseUrl, issuer: `${baseUrl}/sso`, logs, exited };
}

/** Sends a signal to the server (by its pid) and waits for it to exit. */
async function stop(server: RunningServer, signal: NodeJS.Signals): Promise<Finished> {
  server.child.kill(signal);
  return server.exited;
}

/** A cookie jar for one host, honouring Path and Max-Age=0; enough for the sign-in pages. */
class Jar {
  private readonly cookies = new Map<string, { name: string; value: string; path: string }>();

  store(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(';').map((s) => s.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      const attr = (n: string) => attributes.find((a) => a.toLowerCase().startsWith(`${n}=`))?.slice(n.length + 1);
      const cookiePath = attr('path') ?? '/';
      const key = `${cookiePath}\t${name}`;
      if (value === '' || attr('max-age') === '0') this.cookies.delete(key);
      else this.cookies.set(key, { name, value, path: cookiePath });
    }
  }

  header(url: string): string {
    const p = new URL(url).pathname;
    return [...this.cookies.values()]
      .filter((c) => p === c.path || p.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  async fetch(url: string, form?: Record<string, string>): Promise<Response> {
    const headers: Record<string, string> = {};
    const cookie = this.header(url);
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(form).toString();
    }
    const response = await fetch(url, { method: form ? 'POST' : 'GET', headers, body, redirect: 'manual' });
    this.store(response);
    return response;
  }
}

const field = (page: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1];

/** Signs USER in at the listening server and exchanges the code at its token endpoint, all over HTTP. */
async function signInAndExchange(t: Test, issuer: string): Promise<{ accessToken: string; idToken: string }> {
  const jar = new Jar();
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(8).toString('hex');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT.client_id,
    redirect_uri: CLIENT.redirect_uris[0]!,
    scope: 'openid profile email',
    state,
    nonce: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  let response = await jar.fetch(`${issuer}/authorize?${query}`);
  let location: URL | undefined;
  for (let step = 0; step < 8 && !location; step += 1) {
    if (response.status === 302 || response.status === 303) {
      const next = new URL(response.headers.get('location')!, issuer);
      if (next.origin !== new URL(issuer).origin) location = next;
      else response = await jar.fetch(next.href);
      continue;
    }
    const page = await response.text();
    t.equal(response.status, 200, `sign-in page: ${page.slice(0, 200)}`);
    const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1]?.replace(/&amp;/g, '&');
    const csrf = field(page, 'csrf');
    if (!action || !csrf) throw new Error(`no sign-in form in ${page.slice(0, 300)}`);
    const form: Record<string, string> = page.includes('type="password"')
      ? { csrf, login: USER.username, password: USER.password }
      : { csrf, decision: 'allow' };
    response = await jar.fetch(new URL(action, issuer).href, form);
  }
  if (!location) throw new Error('the sign-in did not reach the client');
  t.equal(location.origin + location.pathname, CLIENT.redirect_uris[0]);
  t.equal(location.searchParams.get('state'), state);
  const code = location.searchParams.get('code');
  t.ok(code, 'a code came back');

  const token = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(CLIENT.client_id, CLIENT.client_secret),
    },
    body: `grant_type=authorization_code&code=${formEncode(code!)}&redirect_uri=${formEncode(CLIENT.redirect_uris[0]!)}&code_verifier=${verifier}`,
  });
  const body = (await token.json()) as { access_token: string; id_token: string };
  t.equal(token.status, 200, JSON.stringify(body));
  return { accessToken: body.access_token, idToken: body.id_token };
}

async function jwksKids(issuer: string): Promise<string[]> {
  const res = await fetch(`${issuer}/jwks`);
  const jwks = (await res.json()) as { keys: Array<{ kid: string }> };
  return jwks.keys.map((k) => k.kid);
}

function readyLog(server: RunningServer): Record<string, unknown> {
  return server.logs.find((l) => typeof l.msg === 'string' && / ready on /.test(l.msg))!;
}

/** The first log entry with this message, if any. */
function logged(server: RunningServer, msg: string): Record<string, unknown> | undefined {
  return server.logs.find((l) => l.msg === msg);
}

t.test('the server starts on embedded PGlite, names its issuer and database, answers discovery, and stops on SIGTERM', async (t) => {
  const dir = await tempDir(t);
  const server = await startServer(t, { DATA_DIR: dir });
  const log = readyLog(server);
  t.equal(log.msg, `issuer ${server.issuer} ready on embedded PGlite (${path.join(dir, 'pglite')})`);
  t.match(log, {
    level: 30,
    issuer: server.issuer,
    discovery: `${server.issuer}/.well-known/openid-configuration`,
    database: 'pglite',
    location: path.join(dir, 'pglite'),
  });
  t.match(logged(server, 'migrations applied'), { level: 30, applied: ['20261122000000_initial'] }, 'a fresh folder is migrated at start');
  t.equal((await fs.readFile(path.join(dir, 'pglite.lock'), 'utf8')).trim(), String(server.pid), 'the lock file names the server');

  const res = await fetch(`${server.issuer}/.well-known/openid-configuration`);
  t.equal(res.status, 200);
  const discovery = (await res.json()) as Record<string, unknown>;
  t.equal(discovery.issuer, server.issuer);
  t.equal(discovery.token_endpoint, `${server.issuer}/token`);
  t.equal(discovery.jwks_uri, `${server.issuer}/jwks`);

  const { code, signal } = await stop(server, 'SIGTERM');
  t.equal(code, 0, 'SIGTERM exits with code 0');
  t.equal(signal, null);
  t.match(logged(server, 'shutting down'), { signal: 'SIGTERM' });
  t.notOk(existsSync(path.join(dir, 'pglite.lock')), 'a clean stop releases the lock');
});

t.test(
  'the server starts on PostgreSQL when DATABASE_URL is set and says so',
  { skip: onServer ? false : 'needs TEST_DATABASE_URL' },
  async (t) => {
    const dir = await tempDir(t);
    const database = await createTestDatabase({ migrate: false });
    t.teardown(() => database.drop());
    const url = new URL(database.url!);
    const server = await startServer(t, { DATABASE_URL: database.url!, DATA_DIR: dir });
    const log = readyLog(server);
    const location = `postgres://${url.host}${url.pathname}`;
    t.equal(log.msg, `issuer ${server.issuer} ready on PostgreSQL ${location}`);
    t.match(log, { issuer: server.issuer, database: 'postgres', location });
    t.same(await fs.readdir(dir), [], 'nothing is written to DATA_DIR');

    const res = await fetch(`${server.issuer}/.well-known/openid-configuration`);
    t.equal(res.status, 200);
    t.equal(((await res.json()) as { issuer: string }).issuer, server.issuer);
    const { code } = await stop(server, 'SIGTERM');
    t.equal(code, 0, 'SIGTERM exits with code 0');
  },
);

t.test('a bad PORT stops the server before it starts, naming PORT on stderr', async (t) => {
  const dir = await tempDir(t);
  const run = await runServer({ PORT: 'abc', DATA_DIR: path.join(dir, 'data') });
  t.equal(run.code, 1);
  t.match(run.stderr, /^invalid configuration:\n {2}PORT must be a whole number from 0 to 65535 \(got "abc"\)$/m);
  t.notOk(existsSync(path.join(dir, 'data')), 'no database folder was created');
});

t.test('an http BASE_URL on a public host stops the server, naming BASE_URL on stderr', async (t) => {
  const dir = await tempDir(t);
  const run = await runServer({ BASE_URL: 'http://example.com', DATA_DIR: path.join(dir, 'data') });
  t.equal(run.code, 1);
  t.match(run.stderr, 'BASE_URL must use https outside loopback hosts (got "http://example.com")');
  t.notOk(existsSync(path.join(dir, 'data')));
});

t.test('kill -9 loses nothing committed: the signing key and an issued access token survive a restart', async (t) => {
  const dir = await migratedDataFolder(t);
  await seedDataFolder(dir, { clients: [CLIENT], users: [USER] });

  const port = await forwardedPort(t);
  const first = await startServer(t, { DATA_DIR: dir }, port);
  const kids = await jwksKids(first.issuer);
  const kid = kids[0];
  t.ok(kid, 'the first start generated a signing key');
  const { accessToken, idToken } = await signInAndExchange(t, first.issuer);
  t.equal(JSON.parse(Buffer.from(idToken.split('.')[0]!, 'base64url').toString()).kid, kid, 'the ID token is signed with that key');

  const killed = await stop(first, 'SIGKILL');
  t.equal(killed.signal, 'SIGKILL');
  const lockFile = path.join(dir, 'pglite.lock');
  t.equal((await fs.readFile(lockFile, 'utf8')).trim(), String(first.pid), 'the dead process left its lock behind');

  const second = await startServer(t, { DATA_DIR: dir }, port);
  t.equal((await fs.readFile(lockFile, 'utf8')).trim(), String(second.pid), 'the stale lock was taken over');
  t.equal(logged(second, 'migrations applied'), undefined, 'the schema was already there');
  t.same(await jwksKids(second.issuer), kids, 'the same signing keys, and no new one');

  const info = await fetch(`${second.issuer}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
  const claims = (await info.json()) as Record<string, unknown>;
  t.equal(info.status, 200, JSON.stringify(claims));
  t.equal(claims.email, USER.email);
  t.equal(claims.sub, JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString()).sub);

  const again = await signInAndExchange(t, second.issuer);
  t.ok(again.accessToken, 'sign-in still works after the restart');
  t.equal((await stop(second, 'SIGTERM')).code, 0);
});

t.test('a second process on the same embedded data folder refuses to start', async (t) => {
  const dir = await migratedDataFolder(t);
  const first = await startServer(t, { DATA_DIR: dir });
  const second = await runServer({
    ...UNREACHED_SERVER_ENV,
    DATA_DIR: dir,
  });
  t.equal(second.code, 1, 'the second process exits 1');
  const fatal = second.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { level: number; msg: string; err?: { message: string } })
    .find((l) => l.level === 60);
  t.match(fatal, {
    msg: 'could not start',
    err: {
      message: `the embedded database in ${path.join(dir, 'pglite')} is in use by process ${first.pid}; stop it first, or set DATABASE_URL to share a PostgreSQL server`,
    },
  });
  t.equal((await fs.readFile(path.join(dir, 'pglite.lock'), 'utf8')).trim(), String(first.pid), 'the lock still names the first process');

  const res = await fetch(`${first.issuer}/.well-known/openid-configuration`);
  t.equal(res.status, 200, 'the first process is still serving');
  t.equal((await stop(first, 'SIGTERM')).code, 0);
});
