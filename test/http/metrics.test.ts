// GET /metrics: every documented metric name and label set, scraped after real sign-ins and token requests; route
// labels are patterns, never URLs; sign-in outcomes counted where their security event line is written; METRICS_PORT.
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import t, { type Test } from 'tap';
import { buildApp } from '../../src/app.js';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { applySeed } from '../../src/domain/admin/seed.js';
import { startMetricsServer } from '../../src/metrics-server.js';
import { createMetrics, type Metrics } from '../../src/metrics.js';
import { insertRiskRule } from '../../src/storage/risk.js';
import { ALICE, CONFIDENTIAL, FIXTURES, testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import {
  authorizePath,
  basicAuth,
  Browser,
  CONFIDENTIAL_REQUEST,
  formAction,
  hiddenField,
  localPath,
  obtainCode,
  pkcePair,
  tokenRequest,
} from '../helpers/flow.js';

const SERVICE = {
  client_id: 'service',
  client_secret: 'service-secret-0123456789',
  grant_types: ['client_credentials'],
  scope: 'api:read',
};
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const HEADLESS = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/130.0.0.0 Safari/537.36';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The text exposition format, one sample per line (enough for what prom-client writes). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

const LOG_LINES: Array<Record<string, unknown>> = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    for (const line of String(chunk).split('\n').filter(Boolean)) LOG_LINES.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});

// One app for the file (each test measures the change its own requests make). A locked login after 2 failures.
const database = await createTestDatabase();
const config = testConfig({ SIGN_IN_ACCOUNT_FREE_ATTEMPTS: '2', SIGN_IN_IP_FREE_ATTEMPTS: '0' });
await applySeed(database.handle.db, new PasswordHasher(config.argon2), { ...FIXTURES, clients: [...FIXTURES.clients!, SERVICE] });
const app: FastifyInstance = await buildApp(config, {
  db: database.handle.db,
  logger: pino({ level: 'info' }, sink),
  poolStats: database.handle.poolStats,
  notifier: null,
});
await app.ready();
t.teardown(async () => {
  await app.close();
  await database.drop();
});

async function scrape(target: FastifyInstance = app): Promise<{ res: LightMyRequestResponse; samples: Sample[] }> {
  const res = await target.inject({ method: 'GET', url: '/metrics' });
  return { res, samples: res.statusCode === 200 ? parse(res.body) : [] };
}

/** The value of one sample (0 when absent). */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const hit = samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return hit?.value ?? 0;
}

/** Runs `action` and returns how much the sample grew meanwhile. */
async function growth(name: string, labels: Record<string, string>, action: () => Promise<unknown>): Promise<number> {
  const before = valueOf((await scrape()).samples, name, labels);
  await action();
  return valueOf((await scrape()).samples, name, labels) - before;
}

/** Opens a sign-in page and posts a login and password, with the given User-Agent. */
async function passwordAttempt(login: string, password: string, userAgent = FIREFOX): Promise<LightMyRequestResponse> {
  const browser = new Browser();
  const send = async (method: 'GET' | 'POST', url: string, form?: Record<string, string>) => {
    const headers: Record<string, string> = { 'user-agent': userAgent, 'accept-language': 'en-GB' };
    const cookie = browser.header(url);
    if (cookie) headers.cookie = cookie;
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await app.inject({ method, url, headers, payload: form ? new URLSearchParams(form).toString() : undefined });
    browser.store(res);
    return res;
  };
  const started = await send(
    'GET',
    authorizePath({
      ...CONFIDENTIAL_REQUEST,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    }),
  );
  const page = await send('GET', localPath(String(started.headers.location)));
  return send('POST', formAction(page.body), { csrf: hiddenField(page.body, 'csrf'), login, password });
}

const eventLines = (event: string) => LOG_LINES.filter((l) => l.msg === 'security event' && l.event === event);

/** Every metric the README documents, with its label names (`le` aside). */
const DOCUMENTED: Array<[string, string[]]> = [
  ['sso_http_request_duration_seconds_bucket', ['method', 'route', 'status_code']],
  ['sso_http_request_duration_seconds_sum', ['method', 'route', 'status_code']],
  ['sso_http_request_duration_seconds_count', ['method', 'route', 'status_code']],
  ['sso_sign_ins_total', ['outcome']],
  ['sso_tokens_issued_total', ['grant_type']],
  ['sso_db_pool_max', []],
  ['sso_db_pool_in_use', []],
  ['sso_db_pool_idle', []],
  ['sso_db_pool_waiting', []],
  ['sso_nodejs_eventloop_lag_seconds', []],
  ['sso_nodejs_eventloop_lag_p99_seconds', []],
  ['sso_risk_verdicts_total', ['action']],
  ['sso_risk_reasons_total', ['reason', 'action']],
  ['sso_risk_evaluation_seconds_count', []],
  ['sso_process_cpu_seconds_total', []],
  ['sso_process_resident_memory_bytes', []],
];

t.test('a sign-in counts signed_in, and its code exchange counts authorization_code', async (t) => {
  let obtained: Awaited<ReturnType<typeof obtainCode>> | undefined;
  t.equal(await growth('sso_sign_ins_total', { outcome: 'signed_in' }, async () => (obtained = await obtainCode(app))), 1);
  const { code, verifier, redirectUri } = obtained!;
  const exchange = () => tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier });
  t.equal(await growth('sso_tokens_issued_total', { grant_type: 'authorization_code' }, exchange), 1);
});

t.test('a refused token request counts no token', async (t) => {
  const refused = () =>
    tokenRequest(app, {
      grant_type: 'authorization_code',
      code: 'no-such-code',
      redirect_uri: CONFIDENTIAL.redirect_uris[0],
      code_verifier: pkcePair().verifier,
    });
  t.equal(await growth('sso_tokens_issued_total', { grant_type: 'authorization_code' }, refused), 0);
});

t.test('a client_credentials token counts under its grant type', async (t) => {
  const grant = async () => {
    const res = await tokenRequest(app, { grant_type: 'client_credentials' }, basicAuth(SERVICE.client_id, SERVICE.client_secret));
    t.equal(res.statusCode, 200, res.body);
  };
  t.equal(await growth('sso_tokens_issued_total', { grant_type: 'client_credentials' }, grant), 1);
});

t.test('the request histogram counts a request under its route pattern, method and status', async (t) => {
  const labels = { method: 'POST', route: '/sso/token', status_code: '200' };
  const grant = () => tokenRequest(app, { grant_type: 'client_credentials' }, basicAuth(SERVICE.client_id, SERVICE.client_secret));
  t.equal(await growth('sso_http_request_duration_seconds_count', labels, grant), 1);
  const { samples } = await scrape();
  const buckets = samples.filter(
    (s) => s.name === 'sso_http_request_duration_seconds_bucket' && s.labels.route === '/sso/token' && s.labels.status_code === '200',
  );
  t.equal(buckets.at(-1)?.labels.le, '+Inf');
  t.equal(
    buckets.at(-1)?.value,
    valueOf(samples, 'sso_http_request_duration_seconds_count', labels),
    'the +Inf bucket holds every request',
  );
  t.ok(
    buckets.every((b, i) => i === 0 || b.value >= buckets[i - 1]!.value),
    'buckets are cumulative',
  );
  t.ok(valueOf(samples, 'sso_http_request_duration_seconds_sum', labels) > 0, 'the durations add up to more than nothing');
});

t.test('a route with a parameter is labelled by its pattern, and the value in the URL appears nowhere', async (t) => {
  const started = await app.inject({
    method: 'GET',
    url: authorizePath({
      ...CONFIDENTIAL_REQUEST,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    }),
  });
  const interactionPath = localPath(String(started.headers.location));
  const id = interactionPath.split('/').at(-1)!;
  await app.inject({ method: 'GET', url: interactionPath });
  const { res, samples } = await scrape();
  const routes = new Set(samples.filter((s) => s.name === 'sso_http_request_duration_seconds_count').map((s) => s.labels.route));
  t.ok(routes.has('/sso/interaction/:id'), `the pattern is a label (${[...routes].join(' ')})`);
  t.notMatch(res.body, id, 'the interaction id is not');
  t.notMatch(res.body, 'code_challenge', 'nor any query string');
});

t.test('a HEAD request is counted under HEAD and the route pattern, not as unmatched', async (t) => {
  const head = () => app.inject({ method: 'HEAD', url: '/sso/jwks' });
  t.equal(await growth('sso_http_request_duration_seconds_count', { method: 'HEAD', route: '/sso/jwks', status_code: '200' }, head), 1);
});

t.test('a URL no route matches is counted as route "unmatched", without its path', async (t) => {
  const count = () => app.inject({ method: 'GET', url: '/sso/secret-looking-path-0123456789' });
  t.equal(await growth('sso_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status_code: '404' }, count), 1);
  t.notMatch((await scrape()).res.body, 'secret-looking-path');
});

t.test('a wrong password counts wrong_credentials, where the sign_in_failed line is logged', async (t) => {
  const before = eventLines('sign_in_failed').length;
  const wrong = async () => t.equal((await passwordAttempt(ALICE.username, 'not the password')).statusCode, 401);
  t.equal(await growth('sso_sign_ins_total', { outcome: 'wrong_credentials' }, wrong), 1);
  t.equal(eventLines('sign_in_failed').length - before, 1, 'one sign_in_failed line');
  t.notMatch(JSON.stringify(eventLines('sign_in_failed')), 'not the password', 'the password is not in it');
});

t.test('an attempt on a locked login counts throttled, where the sign_in_throttled line is logged', async (t) => {
  for (let i = 0; i < 2; i += 1) await passwordAttempt('nobody-at-all', 'guess');
  const before = eventLines('sign_in_throttled').length;
  const locked = async () => t.equal((await passwordAttempt('nobody-at-all', 'guess')).statusCode, 429);
  t.equal(await growth('sso_sign_ins_total', { outcome: 'throttled' }, locked), 1);
  t.equal(eventLines('sign_in_throttled').length - before, 1, 'one sign_in_throttled line');
  t.match(eventLines('sign_in_throttled').at(-1), { retryAfterSeconds: Number });
});

t.test('a sign-in asked for a second factor counts challenged, not signed_in', async (t) => {
  const before = valueOf((await scrape()).samples, 'sso_sign_ins_total', { outcome: 'signed_in' });
  // Headless Chrome is flagged as automation, a second factor is asked for (a new user: no new-device points on top).
  await applySeed(database.handle.db, new PasswordHasher(config.argon2), {
    clients: [],
    users: [{ username: 'headless-user', password: 'headless-password' }],
  });
  const challenged = async () => t.equal((await passwordAttempt('headless-user', 'headless-password', HEADLESS)).statusCode, 303);
  t.equal(await growth('sso_sign_ins_total', { outcome: 'challenged' }, challenged), 1);
  t.equal(valueOf((await scrape()).samples, 'sso_sign_ins_total', { outcome: 'signed_in' }), before, 'not signed in yet');
});

t.test('a blocked sign-in counts blocked, not wrong_credentials, though the person sees a wrong password', async (t) => {
  await applySeed(database.handle.db, new PasswordHasher(config.argon2), {
    clients: [],
    users: [{ username: 'blocked-user', password: 'blocked-password' }],
  });
  await insertRiskRule(database.handle.db, { kind: 'username', value: 'blocked-user', effect: 'block', note: null, createdAt: new Date() });
  const wrongBefore = valueOf((await scrape()).samples, 'sso_sign_ins_total', { outcome: 'wrong_credentials' });
  const blocked = async () => t.equal((await passwordAttempt('blocked-user', 'blocked-password')).statusCode, 401);
  t.equal(await growth('sso_sign_ins_total', { outcome: 'blocked' }, blocked), 1);
  t.equal(valueOf((await scrape()).samples, 'sso_sign_ins_total', { outcome: 'wrong_credentials' }), wrongBefore);
});

t.test('the pool gauges describe the database in use', async (t) => {
  const { samples } = await scrape();
  const max = valueOf(samples, 'sso_db_pool_max');
  if (database.url) t.equal(max, 10, 'PostgreSQL: DATABASE_POOL_MAX');
  else t.equal(max, 1, 'PGlite: one session');
  t.equal(valueOf(samples, 'sso_db_pool_waiting'), 0, 'nothing waits between requests');
  t.ok(valueOf(samples, 'sso_db_pool_in_use') + valueOf(samples, 'sso_db_pool_idle') <= max);
});

// Last of the in-app tests: by now a reason of the risk evaluation has been counted too.
t.test('after a sign-in and a token exchange, every documented metric is exposed with its label names', async (t) => {
  const { code, verifier, redirectUri } = await obtainCode(app);
  const exchanged = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier });
  t.equal(exchanged.statusCode, 200);
  const { res, samples } = await scrape();
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/);
  t.equal(res.headers['cache-control'], 'no-store');
  for (const [name, labelNames] of DOCUMENTED) {
    const found = samples.filter((s) => s.name === name);
    t.ok(found.length > 0, `${name} is exposed`);
    for (const s of found) {
      t.same(
        Object.keys(s.labels)
          .filter((l) => l !== 'le')
          .sort(),
        [...labelNames].sort(),
        `${name} has labels ${labelNames.join(', ') || '(none)'}`,
      );
    }
  }
  t.same(
    samples
      .filter((s) => s.name === 'sso_sign_ins_total')
      .map((s) => s.labels.outcome)
      .sort(),
    ['blocked', 'challenged', 'signed_in', 'throttled', 'wrong_credentials'],
    'every sign-in outcome is exposed, at 0 until it happens',
  );
  t.same(
    samples
      .filter((s) => s.name === 'sso_tokens_issued_total')
      .map((s) => s.labels.grant_type)
      .sort(),
    ['authorization_code', 'client_credentials', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
    'every supported grant type is exposed',
  );
});

async function appWith(t: Test, env: Record<string, string>, metrics?: Metrics): Promise<FastifyInstance> {
  const own = await createTestDatabase();
  const built = await buildApp(testConfig(env), { db: own.handle.db, logger: pino({ level: 'silent' }), metrics });
  await built.ready();
  t.teardown(async () => {
    await built.close();
    await own.drop();
  });
  return built;
}

t.test('with METRICS_PORT set, the main port does not serve /metrics', async (t) => {
  const other = await appWith(t, { METRICS_PORT: '9464' });
  t.equal((await other.inject({ method: 'GET', url: '/metrics' })).statusCode, 404);
  t.equal((await other.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'the probes stay on the main port');
});

t.test('the METRICS_PORT listener serves /metrics and nothing else', async (t) => {
  const env = { METRICS_PORT: '9464', METRICS_HOST: '127.0.0.1' };
  const registry = createMetrics();
  const served = await appWith(t, env, registry);
  t.equal((await served.inject({ method: 'GET', url: '/sso/.well-known/openid-configuration' })).statusCode, 200);
  // On port 0: the kernel's port, read back from the listener.
  const onPortZero = testConfig({ ...env, METRICS_PORT: '0' });
  const metrics = await startMetricsServer(onPortZero, pino({ level: 'silent' }), registry.registry);
  t.teardown(() => metrics.close());
  const { port } = metrics.server.address() as AddressInfo;
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  t.equal(res.status, 200);
  const samples = parse(await res.text());
  const discovery = samples.find(
    (s) => s.name === 'sso_http_request_duration_seconds_count' && s.labels.route === '/sso/.well-known/openid-configuration',
  );
  t.equal(discovery?.value, 1, 'the same registry as the app: its request is counted there');
  t.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 404);
  t.equal((await fetch(`http://127.0.0.1:${port}/sso/.well-known/openid-configuration`)).status, 404);
});

const KEYS = { KEYS_ENCRYPTION_SECRET: 'a-test-secret-of-at-least-32-characters' };
const METRICS_TOKEN = 'metrics-token-0123456789-abcdefghijklmnop';

t.test('issue 16 finding 9: a public issuer does not serve /metrics on its main port by default', async (t) => {
  const public_ = await appWith(t, { BASE_URL: 'https://sso.example', ...KEYS });
  t.equal((await public_.inject({ method: 'GET', url: '/metrics' })).statusCode, 404, 'no sign-in counts or risk verdicts for anyone');
  const dev = await appWith(t, { BASE_URL: 'http://localhost:3000' });
  t.equal((await dev.inject({ method: 'GET', url: '/metrics' })).statusCode, 200, 'a development (loopback) issuer serves it');
});

t.test('with METRICS_TOKEN the main port serves /metrics to that bearer token only (RFC 6750 2.1, 3.1)', async (t) => {
  const app = await appWith(t, { BASE_URL: 'https://sso.example', METRICS_TOKEN, ...KEYS });
  const scrape = (authorization?: string) =>
    app.inject({ method: 'GET', url: '/metrics', headers: authorization === undefined ? {} : { authorization } });
  for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${METRICS_TOKEN}`, `Bearer ${METRICS_TOKEN}x`]) {
    const res = await scrape(authorization);
    t.equal(res.statusCode, 401, `${authorization ?? 'no Authorization header'}: refused`);
    t.equal(res.headers['www-authenticate'], 'Bearer realm="metrics"');
    t.notMatch(res.body, 'sso_sign_ins_total');
  }
  const ok = await scrape(`Bearer ${METRICS_TOKEN}`);
  t.equal(ok.statusCode, 200);
  t.match(ok.body, 'sso_sign_ins_total');
});

t.test('METRICS_TOKEN must be a strong bearer secret', async (t) => {
  t.throws(() => testConfig({ METRICS_TOKEN: 'short' }), /METRICS_TOKEN must be at least 32 characters/);
});
