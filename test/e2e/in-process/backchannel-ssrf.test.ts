// Issue 16 finding 3, end to end: with registration open, a stranger registers a client whose back-channel logout
// URI points to this machine, signs in with any account and ends the session; the provider must not POST there.
// Registration refuses such a URI (RFC 7591 3.2.2); a URI that got in before (or a name that resolves to
// loopback) is refused again at delivery, and the delivery is given up with the reason.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import * as oidc from 'openid-client';
import pino from 'pino';
import t, { type Test } from 'tap';
import { systemResolver } from '../../../src/outbound/guarded-fetch.js';
import { CookieJar, visit } from '../../helpers/fetch-browser.js';
import { listenTestApp, type ListeningApp } from '../../helpers/listening.js';
import { startLogoutReceiver } from '../../helpers/logout-receiver.js';
import type { ClientInformation } from '../../helpers/registration.js';
import { prepareAttempt, redeem } from '../../helpers/relying-party.js';
import { testCertificate } from '../../helpers/tls.js';

const CERT = testCertificate(['localhost']);
const REDIRECT_URI = 'http://127.0.0.1:9/cb';

/** Log lines of the app, parsed. */
const logLines: Record<string, unknown>[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});

const server = await listenTestApp(t, {
  env: { REGISTRATION_OPEN: 'true', BACKCHANNEL_LOGOUT_POLL_SECONDS: '1', BACKCHANNEL_LOGOUT_RETRY_SECONDS: '1' },
  logger: pino({ level: 'info' }, logStream),
  // The https receiver's certificate is trusted: if nothing arrives, it is not for want of a working TLS connection.
  outbound: { resolve: systemResolver, extraCa: [CERT.cert] },
});

/** A local https receiver for `localhost`, counting requests. */
async function httpsReceiver(t: Test): Promise<{ port: number; hits: string[] }> {
  const hits: string[] = [];
  const receiver = https.createServer({ cert: CERT.cert, key: CERT.key }, (req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  return { port: (receiver.address() as AddressInfo).port, hits };
}

function registerOverHttp(metadata: Record<string, unknown>, target: ListeningApp = server): Promise<Response> {
  return fetch(`${target.issuer}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT_URI], ...metadata }),
  });
}

/** Stores a URI the way a registration before this fix did: straight into the client's row. */
async function storeLogoutUri(target: ListeningApp, clientId: string, uri: string): Promise<void> {
  const row = await target.db.selectFrom('clients').select('metadata').where('client_id', '=', clientId).executeTakeFirstOrThrow();
  await target.db
    .updateTable('clients')
    .set({ metadata: JSON.stringify({ ...row.metadata, backchannel_logout_uri: uri }) })
    .where('client_id', '=', clientId)
    .execute();
}

/** Signs ALICE in to the client and ends the session with its ID token (RP-Initiated Logout 1.0 2). */
async function signInAndOut(info: ClientInformation, target: ListeningApp = server): Promise<void> {
  const config = await oidc.discovery(
    new URL(target.issuer),
    info.client_id,
    info.client_secret,
    oidc.ClientSecretBasic(info.client_secret!),
    {
      execute: [oidc.allowInsecureRequests],
    },
  );
  const jar = new CookieJar();
  const attempt = await prepareAttempt(config, REDIRECT_URI);
  const { callback } = await visit(target, attempt.authorizationUrl, undefined, jar);
  const tokens = await redeem(attempt, callback);
  const end = oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token! });
  const cookie = jar.header(end);
  const res = await fetch(end, { headers: cookie ? { cookie } : {}, redirect: 'manual' });
  if (res.status >= 400) throw new Error(`logout failed: ${res.status}`);
}

async function outcomeFor(clientId: string, timeoutMs = 10_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = logLines.find((l) => l.client_id === clientId && typeof l.msg === 'string' && /back-channel logout/.test(l.msg));
    if (line) return line;
    if (Date.now() > deadline) throw new Error('no delivery outcome was logged');
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('RFC 7591 3.2.2: open registration refuses a logout URI on loopback, link-local or private addresses', async (t) => {
  const receiver = await startLogoutReceiver(t);
  for (const uri of [
    `${receiver.baseUrl}/any/path?q`,
    'https://127.0.0.1/x',
    'https://169.254.169.254/latest',
    'https://[::1]/x',
    'https://10.1.2.3/',
  ]) {
    const res = await registerOverHttp({ backchannel_logout_uri: uri });
    t.equal(res.status, 400, uri);
    t.equal(((await res.json()) as { error: string }).error, 'invalid_client_metadata', uri);
  }
});

t.test('a self-registered client whose logout URI is on this machine gets no POST; the delivery is refused', async (t) => {
  const plain = await startLogoutReceiver(t);
  const secure = await httpsReceiver(t);
  const cases = [
    { uri: `${plain.baseUrl}/any/path?q`, reason: /^refused: the URL must use https/ },
    { uri: `https://localhost:${secure.port}/x`, reason: /^refused: the address is loopback \(localhost is (127\.0\.0\.1|::1)\)/ },
  ];
  for (const { uri, reason } of cases) {
    const res = await registerOverHttp({ backchannel_logout_uri: 'https://rp.example/bc' });
    t.equal(res.status, 201);
    const info = (await res.json()) as ClientInformation;
    await storeLogoutUri(server, info.client_id, uri);
    await signInAndOut(info);
    const outcome = await outcomeFor(info.client_id);
    t.equal(outcome.msg, 'back-channel logout failed; given up', uri);
    t.match(outcome.reason, reason, uri);
  }
  await new Promise((r) => setTimeout(r, 300));
  t.equal(plain.received.length, 0, 'the http receiver got no request');
  t.same(secure.hits, [], 'the https receiver got no request');
});

t.test('OUTBOUND_ALLOW_NETWORKS lets a self-registered client be told at an address of an allowed network', async (t) => {
  const receiver = await httpsReceiver(t);
  const allowing = await listenTestApp(t, {
    env: { REGISTRATION_OPEN: 'true', OUTBOUND_ALLOW_NETWORKS: '127.0.0.0/8' },
    outbound: { resolve: systemResolver, extraCa: [CERT.cert] },
  });
  const res = await registerOverHttp({ backchannel_logout_uri: `https://127.0.0.1:${receiver.port}/bc` }, allowing);
  t.equal(res.status, 201);
  await signInAndOut((await res.json()) as ClientInformation, allowing);
  const deadline = Date.now() + 10_000;
  while (receiver.hits.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  t.same(receiver.hits, ['/bc'], 'the logout token was delivered over https');
});
