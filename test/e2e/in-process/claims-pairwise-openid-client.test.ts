// Interoperability of the claims request parameter (OIDC Core 5.5) and pairwise subject identifiers (OIDC Core 8.1):
// openid-client v6 asks for individual claims and signs in through pairwise clients, seeded or registered by itself
// with a sector_identifier_uri that a loopback https server hands out, against the provider listening on loopback.
import https from 'node:https';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import t from 'tap';
import type { Resolver } from '../../../src/outbound/guarded-fetch.js';
import { ALICE, CONFIDENTIAL, FIXTURES } from '../../helpers/app.js';
import { CookieJar, visit } from '../../helpers/fetch-browser.js';
import { userId } from '../../helpers/grants.js';
import { listenTestApp } from '../../helpers/listening.js';
import { INITIAL_TOKEN, REGISTRATION_ENV } from '../../helpers/registration.js';
import { discover, discoverConfidential, prepareAttempt, redeem, rejection } from '../../helpers/relying-party.js';
import { testCertificate } from '../../helpers/tls.js';

/** ID tokens with none of the user's claims unless the claims parameter asks for them. */
const MINIMAL = { ...CONFIDENTIAL, client_id: 'minimal', id_token_claims: 'minimal' };
/** Pairwise, sector rp.example (the host of its redirect URI), with refresh tokens. */
const PAIRWISE = {
  client_id: 'pairwise',
  client_secret: 'pairwise-secret-0123456789',
  redirect_uris: ['https://rp.example/cb'],
  grant_types: ['authorization_code', 'refresh_token'],
  subject_type: 'pairwise',
};
/** Another client on rp.example, so of the same sector, whose tokens are for an API as JWTs. */
const API = 'https://reports.example/api';
const PAIRWISE_API = { ...PAIRWISE, client_id: 'pairwise-api', redirect_uris: ['https://rp.example/api-cb'], allowed_resources: [API] };

// The sector_identifier_uri's file, on a made-up host that resolves to a loopback https server only in this test.
const SECTOR_HOST = 'sector.test';
const SECTOR_REDIRECTS = ['https://a.example/cb', 'https://b.example/cb'];
const CERT = testCertificate([SECTOR_HOST]);
const resolve: Resolver = async (hostname) => {
  if (hostname !== SECTOR_HOST) throw new Error(`${hostname} does not resolve in this test`);
  return [{ address: '127.0.0.1', family: 4 }];
};
const files = https.createServer({ cert: CERT.cert, key: CERT.key }, (req, res) => {
  if (req.url === '/redirects.json') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(SECTOR_REDIRECTS));
  else res.writeHead(404).end();
});
await new Promise<void>((done) => files.listen(0, '127.0.0.1', done));
t.teardown(() => new Promise<void>((done) => files.close(() => done())));
const sectorUri = `https://${SECTOR_HOST}:${(files.address() as { port: number }).port}/redirects.json`;

const server = await listenTestApp(t, {
  // Registration is open to the initial access token; the loopback file server is let in for the sector's fetch.
  env: { ...REGISTRATION_ENV, OUTBOUND_ALLOW_NETWORKS: '127.0.0.0/8' },
  outbound: { resolve, extraCa: [CERT.cert] },
  seed: {
    ...FIXTURES,
    resource_servers: [{ identifier: API, scopes: { 'reports:read': 'Read your reports' }, access_token_format: 'jwt' }],
    clients: [...FIXTURES.clients, MINIMAL, PAIRWISE, PAIRWISE_API],
  },
});
// Alice signs in once; every flow below runs in her browser, so each client shows at most its consent page.
const jar = new CookieJar();

type Seeded = { client_id: string; client_secret: string };
const configFor = (client: Seeded) =>
  discover(server, client.client_id, oidc.ClientSecretBasic(client.client_secret), client.client_secret);

/** A code flow for `config` at `redirectUri`, redeemed by openid-client (which validates the ID token). */
async function signIn(config: oidc.Configuration, redirectUri: string, scope: string, extra: Record<string, string> = {}) {
  const attempt = await prepareAttempt(config, redirectUri, scope, extra);
  const { callback } = await visit(server, attempt.authorizationUrl, ALICE, jar);
  return redeem(attempt, callback);
}

/** The sub PAIRWISE (sector rp.example) sees for Alice. */
async function pairwiseSub(): Promise<string> {
  return (await signIn(await configFor(PAIRWISE), PAIRWISE.redirect_uris[0]!, 'openid')).claims()!.sub;
}

t.test('OIDC Discovery 3: openid-client reads claims_parameter_supported and both subject types', async (t) => {
  const metadata = (await discoverConfidential(server)).serverMetadata();
  t.equal(metadata.claims_parameter_supported, true);
  t.same(metadata.subject_types_supported, ['public', 'pairwise']);
});

t.test('OIDC Core 5.5: email asked essential for the ID token and name for userinfo are released where asked', async (t) => {
  const config = await configFor(MINIMAL);
  const claims = JSON.stringify({ id_token: { email: { essential: true } }, userinfo: { name: null } });
  const tokens = await signIn(config, MINIMAL.redirect_uris[0]!, 'openid profile email', { claims });
  const idToken = tokens.claims()!;
  t.equal(idToken.email, ALICE.email, 'the ID token carries the claim asked for it');
  t.equal(idToken.name, undefined, 'and no other user claim: the client registered minimal ID tokens');
  t.equal(idToken.email_verified, undefined);
  const info = await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub);
  t.equal(info.name, ALICE.name, 'userinfo carries the claim asked for it');
});

t.test('OIDC Core 5.5.1: with scope openid alone the same request succeeds and releases neither claim (consent is by scope)', async (t) => {
  // docs/endpoints.md "The claims parameter": a claim is released only when a granted scope covers it; one not
  // released is left out without an error ("MUST NOT generate an error when Claims are not returned").
  const config = await configFor(MINIMAL);
  const claims = JSON.stringify({ id_token: { email: { essential: true } }, userinfo: { name: null } });
  const tokens = await signIn(config, MINIMAL.redirect_uris[0]!, 'openid', { claims });
  t.equal(tokens.scope, 'openid');
  const idToken = tokens.claims()!;
  t.equal(idToken.email, undefined);
  const info = await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub);
  t.same(Object.keys(info), ['sub'], 'userinfo answers the subject alone');
});

t.test('OIDC Core 5.5.1: a claim asked with a value it does not have is left out where asked; one that matches is kept', async (t) => {
  const config = await discoverConfidential(server);
  const claims = JSON.stringify({
    id_token: { email: { value: 'mallory@example.com' }, email_verified: { value: true } },
    userinfo: { name: { value: 'Mallory' } },
  });
  const tokens = await signIn(config, CONFIDENTIAL.redirect_uris[0]!, 'openid profile email', { claims });
  const idToken = tokens.claims()!;
  t.notOk('email' in idToken, 'not released as the value asked for, nor as its own value, though the email scope covers it');
  t.equal(idToken.email_verified, true, 'the value asked for is the user’s: released');
  t.equal(idToken.name, ALICE.name, 'name was asked with a value for userinfo only: the ID token carries it by scope');
  const info = await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub);
  t.notOk('name' in info, 'userinfo leaves out the name whose value differs');
  t.equal(info.email, ALICE.email, 'and answers the email, asked with a value for the ID token only, by scope');
});

t.test('OIDC Core 8.1: a pairwise client sees its own sub, the same in the ID token, at userinfo and after a refresh', async (t) => {
  const config = await configFor(PAIRWISE);
  const tokens = await signIn(config, PAIRWISE.redirect_uris[0]!, 'openid email offline_access');
  const sub = tokens.claims()!.sub;
  t.match(sub, /^[A-Za-z0-9_-]{43}$/, 'a keyed hash (HMAC-SHA256, base64url)');

  const publicSub = (await signIn(await discoverConfidential(server), CONFIDENTIAL.redirect_uris[0]!, 'openid')).claims()!.sub;
  t.equal(publicSub, await userId(server.db), 'the public client sees the local user id');
  t.not(sub, publicSub, 'the pairwise client does not');

  // OIDC Core 5.3.2: openid-client compares userinfo's sub with the one it is given.
  t.equal((await oidc.fetchUserInfo(config, tokens.access_token, sub)).sub, sub);
  const mismatch = await rejection(oidc.fetchUserInfo(config, tokens.access_token, publicSub));
  t.match(mismatch, { code: 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED' }, 'userinfo does not answer the public sub');

  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
  t.equal(refreshed.claims()?.sub, sub, 'the refreshed ID token names the same subject');
  t.equal((await oidc.fetchUserInfo(config, refreshed.access_token, sub)).sub, sub);
});

t.test('OIDC Core 8.1: two clients registering one sector_identifier_uri share a sub; another sector sees another', async (t) => {
  // Redirect URIs on two hosts need a sector_identifier_uri that lists them; one on a single host may still name it.
  const bySector = await Promise.all(
    [SECTOR_REDIRECTS, [SECTOR_REDIRECTS[1]!]].map((redirect_uris) =>
      oidc.dynamicClientRegistration(
        new URL(server.issuer),
        { redirect_uris, subject_type: 'pairwise', sector_identifier_uri: sectorUri, grant_types: ['authorization_code'] },
        undefined,
        { initialAccessToken: INITIAL_TOKEN, execute: [oidc.allowInsecureRequests] },
      ),
    ),
  );
  const subs: string[] = [];
  for (const config of bySector) {
    t.equal(config.clientMetadata().subject_type, 'pairwise');
    t.equal(config.clientMetadata().sector_identifier_uri, sectorUri);
    const redirectUri = (config.clientMetadata().redirect_uris as string[]).at(-1)!;
    subs.push((await signIn(config, redirectUri, 'openid')).claims()!.sub);
  }
  t.equal(subs[0], subs[1], "the sector is the sector_identifier_uri's host, not the redirect URIs'");
  t.not(subs[0], await pairwiseSub(), 'the rp.example sector sees another sub');
  t.not(subs[0], await userId(server.db), 'and neither is the local user id');
});

t.test('OIDC Core 8.1, RFC 9068 2.2: a client on the same redirect host shares the sub, which its JWT access tokens name', async (t) => {
  const sub = await pairwiseSub();
  const config = await configFor(PAIRWISE_API);
  const attempt = await prepareAttempt(config, PAIRWISE_API.redirect_uris[0]!, 'openid offline_access reports:read', { resource: API });
  const { callback } = await visit(server, attempt.authorizationUrl, ALICE, jar);
  const tokens = await oidc.authorizationCodeGrant(config, callback, attempt.checks, { resource: API });
  t.equal(tokens.claims()!.sub, sub, 'the ID token of a client of rp.example names the same subject');
  // The API checks the token as docs/api-access-tokens.md shows.
  const keys = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
  const { payload } = await jwtVerify(tokens.access_token, keys, { issuer: server.issuer, audience: API, typ: 'at+jwt' });
  t.equal(payload.sub, sub, 'so does the JWT access token');
  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!, { resource: API });
  const again = await jwtVerify(refreshed.access_token, keys, { issuer: server.issuer, audience: API, typ: 'at+jwt' });
  t.equal(again.payload.sub, sub, 'and the one a refresh issues');
});
