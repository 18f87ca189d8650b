// Interoperability of refresh, client_credentials, revocation and introspection: openid-client v6 against the
// provider listening on loopback (RFC 6749 4.4 and 6, RFC 9700 4.14.2, RFC 7009, RFC 7662, OIDC Core 11 and 12).
import * as oidc from 'openid-client';
import t from 'tap';
import { ALICE } from '../../helpers/app.js';
import { visit } from '../../helpers/fetch-browser.js';
import { GRANT_FIXTURES, MACHINE, OFFLINE_SCOPE, PUBLIC_REFRESHING, REFRESHING } from '../../helpers/grants.js';
import { listenTestApp, type ListeningApp } from '../../helpers/listening.js';
import { discover, prepareAttempt, redeem, rejection } from '../../helpers/relying-party.js';

/** The code flow with PKCE, state and nonce, through the real sign-in pages, as openid-client drives it. */
async function signInFor(server: ListeningApp, config: oidc.Configuration, redirectUri: string, scope = OFFLINE_SCOPE) {
  const attempt = await prepareAttempt(config, redirectUri, scope);
  const result = await visit(server, attempt.authorizationUrl);
  const tokens = await redeem(attempt, result.callback);
  return { ...result, tokens, nonce: attempt.nonce };
}

t.test(
  'openid-client refreshes with offline_access: new tokens for the same sub, and a rotated refresh token used again kills the family',
  async (t) => {
    const server = await listenTestApp(t, { seed: GRANT_FIXTURES });
    const config = await discover(server, REFRESHING.client_id, oidc.ClientSecretBasic(REFRESHING.client_secret), REFRESHING.client_secret);
    const metadata = config.serverMetadata();
    t.same(metadata.grant_types_supported, [
      'authorization_code',
      'refresh_token',
      'client_credentials',
      'urn:ietf:params:oauth:grant-type:device_code',
    ]);
    t.ok(metadata.scopes_supported?.includes('offline_access'));

    const { pages, consentPage, tokens, nonce } = await signInFor(server, config, REFRESHING.redirect_uris[0]!);
    t.same(pages, ['login', 'consent']);
    t.match(consentPage, 'Keep access while you are not using the app', 'OIDC Core 11: the user consents to offline access');
    t.equal(tokens.scope, OFFLINE_SCOPE);
    t.type(tokens.refresh_token, 'string');
    const original = tokens.claims()!;
    t.equal(original.nonce, nonce);

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    t.equal(refreshed.token_type, 'bearer');
    t.equal(refreshed.scope, OFFLINE_SCOPE);
    t.type(refreshed.refresh_token, 'string');
    t.not(refreshed.refresh_token, tokens.refresh_token, 'RFC 9700 4.14.2: the refresh token is rotated');
    t.not(refreshed.access_token, tokens.access_token);
    const claims = refreshed.claims();
    if (!claims) throw new Error('no ID token from the refresh');
    t.equal(claims.sub, original.sub, 'OIDC Core 12.2: the same sub');
    t.equal(claims.auth_time, original.auth_time, 'OIDC Core 12.2: the original auth_time');
    t.equal(claims.nonce, undefined, 'OIDC Core 12.2: no nonce');
    const info = await oidc.fetchUserInfo(config, refreshed.access_token, original.sub);
    t.equal(info.name, ALICE.name);

    // A narrower scope may be asked for (RFC 6749 6).
    const narrowed = await oidc.refreshTokenGrant(config, refreshed.refresh_token!, { scope: 'openid' });
    t.equal(narrowed.scope, 'openid');
    t.equal(narrowed.claims()?.sub, original.sub);

    const replay = await rejection(oidc.refreshTokenGrant(config, tokens.refresh_token!));
    t.ok(replay instanceof oidc.ResponseBodyError, `a ResponseBodyError, got ${String(replay)}`);
    t.equal((replay as oidc.ResponseBodyError).status, 400);
    t.equal((replay as oidc.ResponseBodyError).error, 'invalid_grant');
    t.equal((replay as oidc.ResponseBodyError).error_description, 'the refresh token was already used');

    const latest = await rejection(oidc.refreshTokenGrant(config, narrowed.refresh_token!));
    t.ok(latest instanceof oidc.ResponseBodyError);
    t.equal((latest as oidc.ResponseBodyError).error, 'invalid_grant', 'the newest refresh token of the family is revoked too');
    for (const accessToken of [tokens.access_token, refreshed.access_token, narrowed.access_token]) {
      const err = await rejection(oidc.fetchUserInfo(config, accessToken, original.sub));
      t.ok(err instanceof oidc.WWWAuthenticateChallengeError, 'every access token of the family is revoked');
      t.equal((err as oidc.WWWAuthenticateChallengeError).status, 401);
    }
  },
);

t.test('openid-client gets a client_credentials token and introspects it with client_secret_post (RFC 6749 4.4, RFC 7662)', async (t) => {
  const server = await listenTestApp(t, { seed: GRANT_FIXTURES });
  const config = await discover(server, MACHINE.client_id, oidc.ClientSecretPost(MACHINE.client_secret), MACHINE.client_secret);
  const tokens = await oidc.clientCredentialsGrant(config, { scope: 'api:read' });
  t.equal(tokens.token_type, 'bearer');
  t.equal(tokens.scope, 'api:read');
  t.equal(tokens.expires_in, 3600);
  t.equal(tokens.refresh_token, undefined, 'RFC 6749 4.4.3: no refresh token');
  t.equal(tokens.id_token, undefined, 'no ID token');

  const defaults = await oidc.clientCredentialsGrant(config);
  t.equal(defaults.scope, MACHINE.scope, 'the registered scope by default');

  const introspection = await oidc.tokenIntrospection(config, tokens.access_token);
  t.equal(introspection.active, true);
  t.equal(introspection.client_id, MACHINE.client_id);
  t.equal(introspection.scope, 'api:read');
  t.equal(introspection.token_type, 'Bearer');
  t.equal(introspection.iss, server.issuer);
  t.equal(introspection.sub, undefined, 'a client token has no sub');

  await oidc.tokenRevocation(config, tokens.access_token);
  t.same(await oidc.tokenIntrospection(config, tokens.access_token), { active: false });
});

t.test('openid-client introspects and revokes a refresh token, which revokes its access tokens (RFC 7662 2, RFC 7009 2.1)', async (t) => {
  const server = await listenTestApp(t, { seed: GRANT_FIXTURES });
  const config = await discover(server, REFRESHING.client_id, oidc.ClientSecretBasic(REFRESHING.client_secret), REFRESHING.client_secret);
  const metadata = config.serverMetadata();
  t.equal(metadata.revocation_endpoint, `${server.issuer}/revoke`);
  t.equal(metadata.introspection_endpoint, `${server.issuer}/introspect`);
  const { tokens } = await signInFor(server, config, REFRESHING.redirect_uris[0]!);
  const sub = tokens.claims()!.sub;

  const access = await oidc.tokenIntrospection(config, tokens.access_token);
  t.equal(access.active, true);
  t.equal(access.sub, sub);
  t.equal(access.client_id, REFRESHING.client_id);
  t.equal(access.token_type, 'Bearer');
  t.equal(access.scope, OFFLINE_SCOPE);
  t.equal(access.iss, server.issuer);
  t.equal((access.exp ?? 0) - (access.iat ?? 0), 3600);

  const refresh = await oidc.tokenIntrospection(config, tokens.refresh_token!, { token_type_hint: 'refresh_token' });
  t.equal(refresh.active, true);
  t.equal(refresh.token_type, 'refresh_token');
  t.equal(refresh.sub, sub);
  t.equal((refresh.exp ?? 0) - (refresh.iat ?? 0), 1_209_600, 'REFRESH_TOKEN_TTL_SECONDS defaults to 14 days');

  await oidc.tokenRevocation(config, tokens.refresh_token!, { token_type_hint: 'refresh_token' });
  t.same(await oidc.tokenIntrospection(config, tokens.refresh_token!), { active: false });
  t.same(await oidc.tokenIntrospection(config, tokens.access_token), { active: false }, 'the access token went with it');
  const err = await rejection(oidc.refreshTokenGrant(config, tokens.refresh_token!));
  t.equal((err as oidc.ResponseBodyError).error, 'invalid_grant');

  // RFC 7009 2.2: an unknown token is not an error.
  await t.resolves(oidc.tokenRevocation(config, 'never-issued'));
});

t.test('openid-client revokes the tokens of a public client, which authenticates with its client_id only (RFC 7009 5)', async (t) => {
  const server = await listenTestApp(t, { seed: GRANT_FIXTURES });
  const config = await discover(server, PUBLIC_REFRESHING.client_id, oidc.None());
  const { tokens } = await signInFor(server, config, PUBLIC_REFRESHING.redirect_uris[0]!, 'openid offline_access');
  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
  await oidc.tokenRevocation(config, refreshed.refresh_token!);
  const err = await rejection(oidc.refreshTokenGrant(config, refreshed.refresh_token!));
  t.equal((err as oidc.ResponseBodyError).error, 'invalid_grant');
  t.equal((err as oidc.ResponseBodyError).error_description, 'the refresh token was revoked');
});
