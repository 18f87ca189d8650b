// TRUST_PROXY decides which address the throttles, the risk evaluation and the request log see: X-Forwarded-For is
// ignored without it and believed only from the proxies it names. The issuer and every URL the provider writes come
// from BASE_URL, never from Host, X-Forwarded-Host or X-Forwarded-Proto, with or without TRUST_PROXY.
import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import t, { type Test } from 'tap';
import { buildTestApp, CONFIDENTIAL } from '../helpers/app.js';
import { DEVICE_FIXTURES, TV_BASIC } from '../helpers/device.js';
import { authorizePath, basicAuth, Browser, CONFIDENTIAL_REQUEST, formAction, hiddenField, localPath, pkcePair } from '../helpers/flow.js';

interface LoggedApp {
  app: FastifyInstance;
  /** The `ip` of every request log line so far, in order. */
  requestIps(): string[];
}

async function loggedApp(t: Test, env: Record<string, string>): Promise<LoggedApp> {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const { app } = await buildTestApp(t, {
    // Only the per-address counter can lock: two free failures per address.
    // and two pushed authorization requests a minute per address (RFC 9126 2.3).
    env: { SIGN_IN_IP_FREE_ATTEMPTS: '2', SIGN_IN_ACCOUNT_FREE_ATTEMPTS: '100', PAR_IP_PER_MINUTE: '2', ...env },
    logger: pino({ level: 'info' }, sink),
    seed: DEVICE_FIXTURES,
  });
  return { app, requestIps: () => lines.filter((l) => l.msg === 'request').map((l) => String(l.ip)) };
}

const direct = await loggedApp(t, {});
const behindList = await loggedApp(t, { TRUST_PROXY: '127.0.0.1' });
const behindOneHop = await loggedApp(t, { TRUST_PROXY: '1' });

/** A sign-in page of its own (fresh browser), then a wrong password posted with these extra headers. */
async function wrongPassword(
  app: FastifyInstance,
  login: string,
  headers: Record<string, string>,
  remoteAddress = '127.0.0.1',
): Promise<LightMyRequestResponse> {
  const browser = new Browser();
  const started = await browser.request(
    app,
    'GET',
    authorizePath({
      ...CONFIDENTIAL_REQUEST,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    }),
  );
  const page = await browser.request(app, 'GET', localPath(String(started.headers.location)));
  const action = formAction(page.body);
  return app.inject({
    method: 'POST',
    url: action,
    remoteAddress,
    headers: { cookie: browser.header(action), 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams({ csrf: hiddenField(page.body, 'csrf'), login, password: 'wrong' }).toString(),
  });
}

t.test(
  'without TRUST_PROXY, X-Forwarded-For is ignored: failures from "different" forwarded addresses lock the one real address',
  async (t) => {
    const { app } = direct;
    t.equal((await wrongPassword(app, 'a-1', { 'x-forwarded-for': '203.0.113.1' })).statusCode, 401);
    t.equal((await wrongPassword(app, 'a-2', { 'x-forwarded-for': '203.0.113.2' })).statusCode, 401);
    t.equal(
      (await wrongPassword(app, 'a-3', { 'x-forwarded-for': '203.0.113.3' })).statusCode,
      429,
      'the socket address 127.0.0.1 is locked',
    );
  },
);

t.test('without TRUST_PROXY, the request log records the socket address, not X-Forwarded-For', async (t) => {
  const { app, requestIps } = direct;
  await app.inject({ method: 'GET', url: '/healthz', remoteAddress: '192.0.2.9', headers: { 'x-forwarded-for': '203.0.113.77' } });
  t.equal(requestIps().at(-1), '192.0.2.9');
});

t.test('with TRUST_PROXY naming the proxy, each forwarded address has its own counter', async (t) => {
  const { app } = behindList;
  for (const [i, client] of ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4'].entries()) {
    t.equal((await wrongPassword(app, `b-${i}`, { 'x-forwarded-for': client })).statusCode, 401, `${client} is not locked`);
  }
});

t.test('with TRUST_PROXY naming the proxy, one forwarded address is locked after its free attempts, and only it', async (t) => {
  const { app } = behindList;
  const client = '198.51.100.50';
  t.equal((await wrongPassword(app, 'c-1', { 'x-forwarded-for': client })).statusCode, 401);
  t.equal((await wrongPassword(app, 'c-2', { 'x-forwarded-for': client })).statusCode, 401);
  t.equal((await wrongPassword(app, 'c-3', { 'x-forwarded-for': client })).statusCode, 429, `${client} is locked`);
  t.equal((await wrongPassword(app, 'c-4', { 'x-forwarded-for': '198.51.100.51' })).statusCode, 401, 'its neighbour is not');
});

t.test('X-Forwarded-For from an address TRUST_PROXY does not name is ignored', async (t) => {
  const { app, requestIps } = behindList;
  await app.inject({ method: 'GET', url: '/healthz', remoteAddress: '192.0.2.10', headers: { 'x-forwarded-for': '203.0.113.78' } });
  t.equal(requestIps().at(-1), '192.0.2.10');
  await app.inject({ method: 'GET', url: '/healthz', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.78' } });
  t.equal(requestIps().at(-1), '203.0.113.78', 'while the named proxy is believed');
});

t.test('TRUST_PROXY=1 believes one hop: a client-written X-Forwarded-For entry further left is not the address', async (t) => {
  const { app, requestIps } = behindOneHop;
  // The client sent "X-Forwarded-For: 10.9.9.9" itself; the one proxy appended the address it saw.
  await app.inject({
    method: 'GET',
    url: '/healthz',
    remoteAddress: '192.0.2.20',
    headers: { 'x-forwarded-for': '10.9.9.9, 203.0.113.80' },
  });
  t.equal(requestIps().at(-1), '203.0.113.80');
});

/** A pushed authorization request (RFC 9126 2.1) of the confidential client, with these extra headers. */
function push(app: FastifyInstance, headers: Record<string, string>, remoteAddress = '127.0.0.1'): Promise<number> {
  const form = new URLSearchParams({
    ...CONFIDENTIAL_REQUEST,
    redirect_uri: CONFIDENTIAL.redirect_uris[0]!,
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
  });
  return app
    .inject({
      method: 'POST',
      url: '/sso/par',
      remoteAddress,
      headers: {
        authorization: basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret),
        'content-type': 'application/x-www-form-urlencoded',
        ...headers,
      },
      payload: form.toString(),
    })
    .then((res) => res.statusCode);
}

t.test('without TRUST_PROXY, pushes from "different" forwarded addresses are counted against the one real address', async (t) => {
  const { app } = direct;
  const from = (client: string) => push(app, { 'x-forwarded-for': client }, '192.0.2.30');
  t.equal(await from('203.0.113.11'), 201);
  t.equal(await from('203.0.113.12'), 201);
  t.equal(await from('203.0.113.13'), 429, 'RFC 9126 2.3: the socket address 192.0.2.30 is over its pushes');
});

t.test('with TRUST_PROXY naming the proxy, pushes are counted per forwarded address, and only it is refused', async (t) => {
  const { app } = behindList;
  for (const client of ['198.51.100.61', '198.51.100.62', '198.51.100.63']) {
    t.equal(await push(app, { 'x-forwarded-for': client }), 201, `${client} pushes`);
  }
  t.equal(await push(app, { 'x-forwarded-for': '198.51.100.70' }), 201);
  t.equal(await push(app, { 'x-forwarded-for': '198.51.100.70' }), 201);
  t.equal(await push(app, { 'x-forwarded-for': '198.51.100.70' }), 429, 'RFC 9126 2.3: 198.51.100.70 is over its pushes');
  t.equal(await push(app, { 'x-forwarded-for': '198.51.100.71' }), 201, 'its neighbour is not');
});

/** Requests that write the issuer or an issuer URL into their answer, sent with a hostile Host and forwarding headers. */
const HOSTILE = {
  host: 'evil.example',
  'x-forwarded-host': 'evil.example',
  'x-forwarded-proto': 'https',
  'x-forwarded-for': '203.0.113.99',
};

async function answersWithUrls(app: FastifyInstance): Promise<LightMyRequestResponse[]> {
  const send = (options: InjectOptions) => app.inject({ ...options, headers: { ...HOSTILE, ...options.headers } });
  const browser = new Browser();
  const started = await send({
    method: 'GET',
    url: authorizePath({
      ...CONFIDENTIAL_REQUEST,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    }),
  });
  browser.store(started);
  const pageUrl = localPath(String(started.headers.location));
  const page = await send({ method: 'GET', url: pageUrl, headers: { cookie: browser.header(pageUrl) } });
  return [
    await send({ method: 'GET', url: '/sso/.well-known/openid-configuration' }),
    started,
    page,
    await send({
      method: 'POST',
      url: '/sso/device_authorization',
      headers: { authorization: TV_BASIC, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'scope=openid',
    }),
    await send({ method: 'GET', url: '/sso/userinfo', headers: { authorization: 'Bearer not-a-token' } }),
    await send({ method: 'GET', url: '/sso/account' }),
  ];
}

for (const [name, setup] of [
  ['without TRUST_PROXY', direct],
  ['with TRUST_PROXY', behindOneHop],
] as const) {
  t.test(`${name}, the issuer and every URL come from BASE_URL, never from Host or X-Forwarded-Host`, async (t) => {
    const answers = await answersWithUrls(setup.app);
    const discovery = answers[0]!.json() as Record<string, unknown>;
    t.equal(discovery.issuer, 'http://localhost:3000/sso');
    for (const [key, value] of Object.entries(discovery)) {
      if (key !== 'issuer' && typeof value === 'string' && /^https?:/.test(value))
        t.ok(value.startsWith('http://localhost:3000/sso/'), `${key}: ${value}`);
    }
    t.ok(String(answers[1]!.headers.location).startsWith('http://localhost:3000/sso/interaction/'), 'the authorize redirect');
    t.match(answers[2]!.body, /<form method="post" action="http:\/\/localhost:3000\/sso\//, 'the sign-in form action');
    t.equal(answers[3]!.json().verification_uri, 'http://localhost:3000/sso/device', 'the device verification URI');
    for (const [i, res] of answers.entries()) {
      t.notMatch(
        JSON.stringify(res.headers) + res.body,
        /evil\.example|https:\/\/localhost/,
        `answer ${i + 1} (${res.statusCode}) carries nothing from the request's headers`,
      );
    }
  });
}
