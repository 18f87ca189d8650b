// Dynamic client registration end to end: a relying party registers itself over HTTP (RFC 7591) and signs a user in
// at once with openid-client v6 against the listening provider; then it updates and deletes itself (RFC 7592).
import * as oidc from 'openid-client';
import t from 'tap';
import { ALICE } from '../../helpers/app.js';
import { visit } from '../../helpers/fetch-browser.js';
import { listenTestApp } from '../../helpers/listening.js';
import { INITIAL_TOKEN, REGISTRATION_ENV, type ClientInformation } from '../../helpers/registration.js';
import { discover, prepareAttempt, redeem, rejection } from '../../helpers/relying-party.js';

const server = await listenTestApp(t, { env: REGISTRATION_ENV });

/** What a relying party does: read discovery, POST its metadata as JSON with the initial access token. */
async function registerOverHttp(metadata: Record<string, unknown>): Promise<ClientInformation> {
  const discovery = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as { registration_endpoint: string };
  const response = await fetch(discovery.registration_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${INITIAL_TOKEN}` },
    body: JSON.stringify(metadata),
  });
  if (response.status !== 201) throw new Error(`registration failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as ClientInformation;
}

async function configure(info: ClientInformation, method: 'GET' | 'PUT' | 'DELETE', body?: unknown): Promise<Response> {
  return fetch(info.registration_client_uri, {
    method,
    headers: { authorization: `Bearer ${info.registration_access_token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
}

t.test(
  'a client registered over HTTP signs a user in at once: PKCE, client_secret_basic, its own ID token alg, refresh, userinfo',
  async (t) => {
    const info = await registerOverHttp({
      client_name: 'Self-registered RP',
      redirect_uris: ['http://127.0.0.1:9/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      id_token_signed_response_alg: 'ES256',
    });
    t.equal(info.registration_client_uri, `${server.issuer}/register/${info.client_id}`);
    // openid-client checks the ID token's alg against the one the client registered (RS256 unless told).
    const config = await oidc.discovery(
      new URL(server.issuer),
      info.client_id,
      { client_secret: info.client_secret, id_token_signed_response_alg: info.id_token_signed_response_alg as string },
      oidc.ClientSecretBasic(info.client_secret!),
      { execute: [oidc.allowInsecureRequests] },
    );
    t.equal(config.serverMetadata().registration_endpoint, `${server.issuer}/register`);

    const attempt = await prepareAttempt(config, 'http://127.0.0.1:9/callback', 'openid email offline_access');
    const { pages, callback } = await visit(server, attempt.authorizationUrl);
    t.same(pages, ['login', 'consent']);
    const tokens = await redeem(attempt, callback);
    const claims = tokens.claims()!;
    t.equal(claims.aud, info.client_id);
    t.equal(claims.nonce, attempt.nonce);
    t.equal(JSON.parse(Buffer.from(tokens.id_token!.split('.')[0]!, 'base64url').toString()).alg, 'ES256');
    t.type(tokens.refresh_token, 'string');
    t.equal((await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)).email, ALICE.email);

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    t.type(refreshed.access_token, 'string');
  },
);

t.test('a public client registered over HTTP signs in with PKCE and no secret', async (t) => {
  const info = await registerOverHttp({ redirect_uris: ['http://localhost:9/cb'], token_endpoint_auth_method: 'none' });
  t.equal(info.client_secret, undefined);
  const config = await discover(server, info.client_id, oidc.None());
  const attempt = await prepareAttempt(config, 'http://localhost:9/cb');
  const { callback } = await visit(server, attempt.authorizationUrl);
  const tokens = await redeem(attempt, callback);
  t.equal(tokens.claims()?.aud, info.client_id);
});

t.test('a client that updates itself is used as updated, and one that deletes itself is refused with invalid_client', async (t) => {
  const info = await registerOverHttp({ redirect_uris: ['http://127.0.0.1:9/old', 'http://127.0.0.1:9/new'] });
  const config = await discover(server, info.client_id, oidc.ClientSecretBasic(info.client_secret!), info.client_secret);

  const read = (await (await configure(info, 'GET')).json()) as ClientInformation;
  const {
    registration_access_token: _t,
    registration_client_uri: _u,
    client_secret_expires_at: _e,
    client_id_issued_at: _i,
    ...metadata
  } = read;
  const updated = await configure(info, 'PUT', { ...metadata, redirect_uris: ['http://127.0.0.1:9/new'] });
  t.equal(updated.status, 200);

  const attempt = await prepareAttempt(config, 'http://127.0.0.1:9/new');
  const { callback } = await visit(server, attempt.authorizationUrl);
  const oldUri = await fetch((await prepareAttempt(config, 'http://127.0.0.1:9/old')).authorizationUrl, { redirect: 'manual' });
  t.equal(oldUri.status, 400, 'the removed redirect URI is no longer accepted');

  const deleted = await configure(info, 'DELETE');
  t.equal(deleted.status, 204);
  const refused = await rejection(redeem(attempt, callback));
  // RFC 6749 5.2: invalid_client is a 401 with a challenge, which openid-client reports as such.
  t.ok(refused instanceof oidc.WWWAuthenticateChallengeError, `a WWWAuthenticateChallengeError, got ${String(refused)}`);
  const challenge = refused as oidc.WWWAuthenticateChallengeError;
  t.equal(challenge.status, 401);
  t.equal(challenge.cause[0]?.scheme, 'basic');
  t.equal(((await challenge.response.json()) as { error: string }).error, 'invalid_client');
  t.equal((await configure(info, 'GET')).status, 401, 'its registration is gone');
});
