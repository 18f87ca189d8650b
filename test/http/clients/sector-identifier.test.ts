// subject_type and sector_identifier_uri at dynamic registration (OIDC Registration 2, OIDC Core 8.1, RFC 7591
// 3.2.2): the metadata checks, and the file the provider fetches through the guarded fetch.
import https from 'node:https';
import t, { type Test } from 'tap';
import type { Resolver } from '../../../src/outbound/guarded-fetch.js';
import { buildTestApp } from '../../helpers/app.js';
import { manage, postRegistration, register, REGISTRATION_ENV, updateBody, WEB_METADATA } from '../../helpers/registration.js';
import { testCertificate } from '../../helpers/tls.js';

const SECTOR_HOST = 'sector.test';
const CERT = testCertificate([SECTOR_HOST]);
/** Only the sector's made-up name resolves, to the loopback file server; nothing leaves the machine. */
const resolve: Resolver = async (hostname) => {
  if (hostname !== SECTOR_HOST) throw new Error(`${hostname} does not resolve in this test`);
  return [{ address: '127.0.0.1', family: 4 }];
};

const FILES: Record<string, { status: number; body: string }> = {
  '/all.json': { status: 200, body: JSON.stringify(['https://rp.example/cb', 'https://other.example/cb', 'https://spare.example/cb']) },
  '/some.json': { status: 200, body: JSON.stringify(['https://rp.example/cb']) },
  '/object.json': { status: 200, body: JSON.stringify({ redirect_uris: ['https://rp.example/cb'] }) },
  '/text': { status: 200, body: 'https://rp.example/cb' },
  '/gone': { status: 404, body: '' },
};
const fetched: string[] = [];
const files = https.createServer({ cert: CERT.cert, key: CERT.key }, (req, res) => {
  fetched.push(req.url ?? '');
  const file = FILES[req.url ?? ''] ?? { status: 404, body: '' };
  res.writeHead(file.status, { 'content-type': 'application/json' }).end(file.body);
});
await new Promise<void>((done) => files.listen(0, '127.0.0.1', done));
t.teardown(() => new Promise<void>((done) => files.close(() => done())));
const port = (files.address() as { port: number }).port;
const sectorUri = (path: string) => `https://${SECTOR_HOST}:${port}${path}`;

const { app } = await buildTestApp(t, {
  // A self-registered client's destinations must be public; the test's loopback file server is let in by name.
  env: { ...REGISTRATION_ENV, OUTBOUND_ALLOW_NETWORKS: '127.0.0.0/8' },
  outbound: { resolve, extraCa: [CERT.cert] },
});

const TWO_HOSTS = { ...WEB_METADATA, redirect_uris: ['https://rp.example/cb', 'https://other.example/cb'] };

async function refused(t: Test, body: Record<string, unknown>, pattern: RegExp) {
  const res = await postRegistration(app, body);
  t.equal(res.statusCode, 400, res.body);
  t.equal(res.json().error, 'invalid_client_metadata');
  t.match(res.json().error_description, pattern);
}

t.test('OIDC Registration 2: a pairwise client whose redirect URIs share one host needs no sector_identifier_uri', async (t) => {
  const info = await register(app, { ...WEB_METADATA, subject_type: 'pairwise' });
  t.equal(info.subject_type, 'pairwise');
});

t.test('OIDC Registration 2: a pairwise client with redirect URIs on several hosts must register a sector_identifier_uri', async (t) => {
  await refused(t, { ...TWO_HOSTS, subject_type: 'pairwise' }, /must register a sector_identifier_uri/);
});

t.test('OIDC Registration 2: subject_type is public or pairwise', async (t) => {
  await refused(t, { ...WEB_METADATA, subject_type: 'anonymous' }, /subject_type must be one of public, pairwise/);
});

t.test('OIDC Core 8.1: a sector_identifier_uri must use https', async (t) => {
  await refused(t, { ...TWO_HOSTS, subject_type: 'pairwise', sector_identifier_uri: `http://${SECTOR_HOST}:${port}/all.json` }, /https/);
});

t.test('OIDC Core 8.1: a sector_identifier_uri listing every redirect URI is accepted, fetched once', async (t) => {
  const before = fetched.length;
  const info = await register(app, { ...TWO_HOSTS, subject_type: 'pairwise', sector_identifier_uri: sectorUri('/all.json') });
  t.equal(info.sector_identifier_uri, sectorUri('/all.json'));
  t.same(fetched.slice(before), ['/all.json']);
});

t.test('OIDC Core 8.1: a sector_identifier_uri that lacks a registered redirect URI is invalid_client_metadata', async (t) => {
  await refused(
    t,
    { ...TWO_HOSTS, subject_type: 'pairwise', sector_identifier_uri: sectorUri('/some.json') },
    /does not list 1 of the registered redirect_uris/,
  );
});

t.test('OIDC Registration 2: a sector_identifier_uri must hold a JSON array', async (t) => {
  await refused(t, { ...TWO_HOSTS, subject_type: 'pairwise', sector_identifier_uri: sectorUri('/object.json') }, /JSON array/);
  await refused(t, { ...TWO_HOSTS, subject_type: 'pairwise', sector_identifier_uri: sectorUri('/text') }, /did not answer with JSON/);
  await refused(t, { ...TWO_HOSTS, subject_type: 'pairwise', sector_identifier_uri: sectorUri('/gone') }, /answered 404/);
});

t.test('RFC 7591 3.2.2: a sector_identifier_uri that cannot be reached is invalid_client_metadata, nothing registered', async (t) => {
  await refused(
    t,
    { ...TWO_HOSTS, subject_type: 'pairwise', sector_identifier_uri: 'https://unknown.test/redirects.json' },
    /sector_identifier_uri of host unknown.test could not be read/,
  );
});

t.test('RFC 7591 3.2.2: a sector_identifier_uri on a private address literal is refused before any fetch', async (t) => {
  const before = fetched.length;
  await refused(t, { ...TWO_HOSTS, subject_type: 'pairwise', sector_identifier_uri: 'https://10.1.2.3/r.json' }, /private network/);
  t.equal(fetched.length, before);
});

t.test('RFC 7592 2.2: an update is held to the same rules, and a refused one writes nothing', async (t) => {
  const info = await register(app, { ...TWO_HOSTS, subject_type: 'pairwise', sector_identifier_uri: sectorUri('/all.json') });
  const bad = await manage(
    app,
    'PUT',
    info.client_id,
    info.registration_access_token,
    updateBody(info, { sector_identifier_uri: sectorUri('/some.json') }),
  );
  t.equal(bad.statusCode, 400, bad.body);
  t.equal(bad.json().error, 'invalid_client_metadata');
  const read = await manage(app, 'GET', info.client_id, info.registration_access_token);
  t.equal(read.json().sector_identifier_uri, sectorUri('/all.json'));
});
