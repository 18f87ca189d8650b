// Interoperability: openid-client v6 as the relying party against the provider listening on loopback,
// with the sign-in pages followed over real HTTP.
import * as oidc from 'openid-client';
import t from 'tap';
import { ALICE, CONFIDENTIAL, PUBLIC } from '../../helpers/app.js';
import { CookieJar, visit } from '../../helpers/fetch-browser.js';
import { basicAuth } from '../../helpers/flow.js';
import { listenTestApp } from '../../helpers/listening.js';
import { discover, discoverConfidential, prepareAttempt, redeem, rejection } from '../../helpers/relying-party.js';

t.test('openid-client signs a user in with PKCE and client_secret_basic, validates the ID token and reads userinfo', async (t) => {
  const server = await listenTestApp(t);
  const config = await discoverConfidential(server);
  const metadata = config.serverMetadata();
  t.equal(metadata.issuer, server.issuer);
  t.equal(metadata.issuer, `${server.baseUrl}/sso`);
  t.equal(metadata.token_endpoint, `${server.issuer}/token`);
  t.equal(metadata.authorization_response_iss_parameter_supported, true);
  t.same(metadata.code_challenge_methods_supported, ['S256']);

  const attempt = await prepareAttempt(config, CONFIDENTIAL.redirect_uris[0]!);
  t.equal(attempt.authorizationUrl.href.startsWith(`${server.issuer}/authorize?`), true, attempt.authorizationUrl.href);
  const { pages, callback } = await visit(server, attempt.authorizationUrl);
  t.same(pages, ['login', 'consent'], 'a first visit shows the sign-in page, then the consent page');
  t.equal(`${callback.origin}${callback.pathname}`, CONFIDENTIAL.redirect_uris[0]);
  t.equal(callback.searchParams.get('state'), attempt.state);
  t.equal(callback.searchParams.get('iss'), server.issuer);
  t.match(callback.searchParams.get('code'), /^[A-Za-z0-9_-]{22,}$/);

  const tokens = await redeem(attempt, callback);
  t.equal(tokens.token_type, 'bearer');
  t.equal(tokens.scope, 'openid profile email');
  t.equal(tokens.expires_in, 3600);
  t.type(tokens.access_token, 'string');
  t.equal(tokens.refresh_token, undefined, 'no refresh token is issued');
  const claims = tokens.claims();
  if (!claims) throw new Error('no ID token claims');
  t.equal(claims.iss, server.issuer);
  t.equal(claims.aud, CONFIDENTIAL.client_id);
  t.equal(claims.nonce, attempt.nonce);
  t.match(claims.sub, /^\S+$/);
  t.type(claims.at_hash, 'string');
  t.type(claims.auth_time, 'number');
  t.equal(claims.exp - claims.iat, 3600, 'the ID token lives for ID_TOKEN_TTL_SECONDS');

  const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
  t.equal(info.sub, claims.sub);
  t.equal(info.email, ALICE.email);
  t.equal(info.email_verified, true);
  t.equal(info.name, ALICE.name);
  t.equal(info.given_name, ALICE.given_name);
  t.equal(info.family_name, ALICE.family_name);
  t.equal(info.phone_number, undefined, 'the phone scope was not asked for');

  // Consent is remembered; and in a browser already signed in, the provider answers at once with a new code.
  const jar = new CookieJar();
  const first = await visit(server, (await prepareAttempt(config, CONFIDENTIAL.redirect_uris[0]!)).authorizationUrl, ALICE, jar);
  t.same(first.pages, ['login'], 'in a new browser only the sign-in page: consent was remembered');
  const again = await prepareAttempt(config, CONFIDENTIAL.redirect_uris[0]!);
  const second = await visit(server, again.authorizationUrl, ALICE, jar);
  t.same(second.pages, [], 'no page is shown to a signed-in user who already consented');
  const secondTokens = await redeem(again, second.callback);
  t.equal(secondTokens.claims()?.sub, claims.sub);
});

t.test('a replayed code is refused with invalid_grant and revokes the access token issued from it', async (t) => {
  const server = await listenTestApp(t);
  const config = await discoverConfidential(server);
  const attempt = await prepareAttempt(config, CONFIDENTIAL.redirect_uris[0]!);
  const { callback } = await visit(server, attempt.authorizationUrl);

  const tokens = await redeem(attempt, callback);
  const sub = tokens.claims()!.sub;
  t.equal((await oidc.fetchUserInfo(config, tokens.access_token, sub)).email, ALICE.email);

  const replay = await rejection(redeem(attempt, callback));
  t.ok(replay instanceof oidc.ResponseBodyError, `a ResponseBodyError, got ${String(replay)}`);
  const bodyError = replay as oidc.ResponseBodyError;
  t.equal(bodyError.status, 400);
  t.equal(bodyError.error, 'invalid_grant');
  t.equal(bodyError.error_description, 'the authorization code was already used');

  const revoked = await rejection(oidc.fetchUserInfo(config, tokens.access_token, sub));
  t.ok(revoked instanceof oidc.WWWAuthenticateChallengeError, `a WWWAuthenticateChallengeError, got ${String(revoked)}`);
  const challenge = revoked as oidc.WWWAuthenticateChallengeError;
  t.equal(challenge.status, 401);
  t.equal(challenge.cause[0]?.scheme, 'bearer');
  t.equal(challenge.cause[0]?.parameters.error, 'invalid_token');
});

t.test('of 20 concurrent redemptions of one code exactly one succeeds', async (t) => {
  const server = await listenTestApp(t);
  const config = await discoverConfidential(server);
  const attempt = await prepareAttempt(config, CONFIDENTIAL.redirect_uris[0]!);
  const { callback } = await visit(server, attempt.authorizationUrl);
  const code = callback.searchParams.get('code')!;

  const tokenRequest = async (form: Record<string, string>) => {
    const response = await fetch(`${server.issuer}/token`, {
      method: 'POST',
      headers: {
        authorization: basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret),
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams(form).toString(),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };
  const form = { grant_type: 'authorization_code', code, redirect_uri: CONFIDENTIAL.redirect_uris[0]!, code_verifier: attempt.verifier };
  // One request with an unknown code first, so the verified client secret is cached and the 20 below
  // reach the database together instead of queueing behind argon2.
  const warmUp = await tokenRequest({ ...form, code: 'not-a-code' });
  t.same(warmUp, { status: 400, json: { error: 'invalid_grant', error_description: 'the authorization code is invalid' } });

  const responses = await Promise.all(Array.from({ length: 20 }, () => tokenRequest(form)));
  const won = responses.filter((r) => r.status === 200);
  const lost = responses.filter((r) => r.status !== 200);
  t.equal(won.length, 1, `statuses: ${responses.map((r) => r.status).join(',')}`);
  t.equal(lost.length, 19);
  t.same(new Set(lost.map((r) => r.status)), new Set([400]));
  t.same(new Set(lost.map((r) => r.json.error)), new Set(['invalid_grant']));
  const winner = won[0]!.json;
  t.type(winner.access_token, 'string');
  t.type(winner.id_token, 'string');

  // RFC 6749 4.1.2: every losing attempt was a reuse of the code, so the winner's token is revoked too.
  const info = await fetch(`${server.issuer}/userinfo`, { headers: { authorization: `Bearer ${String(winner.access_token)}` } });
  t.equal(info.status, 401);
  t.match(info.headers.get('www-authenticate'), /error="invalid_token"/);
  await info.body?.cancel();
});

t.test('a public client completes the flow with PKCE and no client secret', async (t) => {
  const server = await listenTestApp(t);
  const config = await discover(server, PUBLIC.client_id, oidc.None());
  const attempt = await prepareAttempt(config, PUBLIC.redirect_uris[0]!, 'openid email');
  t.equal(attempt.authorizationUrl.searchParams.get('client_id'), PUBLIC.client_id);
  const { pages, callback } = await visit(server, attempt.authorizationUrl);
  t.same(pages, ['login', 'consent']);
  t.equal(`${callback.origin}${callback.pathname}`, PUBLIC.redirect_uris[0]);

  const tokens = await redeem(attempt, callback);
  const claims = tokens.claims()!;
  t.equal(claims.aud, PUBLIC.client_id);
  t.equal(claims.nonce, attempt.nonce);
  t.equal(tokens.scope, 'openid email');
  const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
  t.equal(info.sub, claims.sub);
  t.equal(info.email, ALICE.email);
  t.equal(info.name, undefined, 'the profile scope was not asked for');
});

t.test('a public client cannot redeem its code without the PKCE verifier', async (t) => {
  const server = await listenTestApp(t);
  const config = await discover(server, PUBLIC.client_id, oidc.None());
  const attempt = await prepareAttempt(config, PUBLIC.redirect_uris[0]!);
  const { callback } = await visit(server, attempt.authorizationUrl);
  const err = await rejection(
    oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: oidc.randomPKCECodeVerifier(),
      expectedNonce: attempt.nonce,
      expectedState: attempt.state,
    }),
  );
  t.ok(err instanceof oidc.ResponseBodyError, `a ResponseBodyError, got ${String(err)}`);
  t.equal((err as oidc.ResponseBodyError).error, 'invalid_grant');
  t.equal((err as oidc.ResponseBodyError).error_description, 'code_verifier does not match the code_challenge');
});

t.test('the callback carries iss (RFC 9207) and openid-client refuses a wrong or missing one', async (t) => {
  const server = await listenTestApp(t);
  const config = await discoverConfidential(server);
  const attempt = await prepareAttempt(config, CONFIDENTIAL.redirect_uris[0]!);
  const { callback } = await visit(server, attempt.authorizationUrl);
  t.equal(callback.searchParams.get('iss'), server.issuer);

  const forged = new URL(callback);
  forged.searchParams.set('iss', 'https://attacker.example/sso');
  await t.rejects(redeem(attempt, forged), {
    code: 'OAUTH_INVALID_RESPONSE',
    cause: { message: 'unexpected "iss" (issuer) response parameter value' },
  });

  const stripped = new URL(callback);
  stripped.searchParams.delete('iss');
  await t.rejects(redeem(attempt, stripped), {
    code: 'OAUTH_INVALID_RESPONSE',
    cause: { message: 'response parameter "iss" (issuer) missing' },
  });

  // Both were refused before the token request: the code is still good for the genuine callback.
  const tokens = await redeem(attempt, callback);
  t.equal(tokens.claims()?.iss, server.issuer);
});
