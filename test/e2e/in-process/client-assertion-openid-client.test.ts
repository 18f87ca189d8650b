// Interoperability of JWT client authentication (RFC 7523, OIDC Core 9): openid-client v6 as the relying party with
// PrivateKeyJwt (its keys behind a jwks_uri on loopback) and ClientSecretJwt, against the provider listening.
import * as oidc from 'openid-client';
import t from 'tap';
import { ALICE, FIXTURES } from '../../helpers/app.js';
import { clientKey, jwksOf, servedJwks } from '../../helpers/client-keys.js';
import { visit } from '../../helpers/fetch-browser.js';
import { listenTestApp } from '../../helpers/listening.js';
import { discover, prepareAttempt, redeem, rejection } from '../../helpers/relying-party.js';

const REDIRECT = 'https://keyed.example/cb';
const HMAC_SECRET = 'an-hmac-client-secret-0123456789-abcdefghij';

t.test(
  'openid-client with private_key_jwt: code flow, refresh, introspection and revocation; a replayed assertion is refused',
  async (t) => {
    const key = await clientKey('ES256');
    const jwks = await servedJwks(t, jwksOf(key));
    const keyed = {
      client_id: 'keyed',
      client_name: 'Keyed App',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'openid profile email offline_access',
      token_endpoint_auth_method: 'private_key_jwt' as const,
      jwks_uri: jwks.uri,
    };
    const server = await listenTestApp(t, { seed: { ...FIXTURES, clients: [...FIXTURES.clients, keyed] } });
    const config = await discover(server, 'keyed', oidc.PrivateKeyJwt({ key: key.privateKey, kid: key.kid }));
    t.ok(config.serverMetadata().token_endpoint_auth_methods_supported?.includes('private_key_jwt'));

    const attempt = await prepareAttempt(config, REDIRECT, 'openid profile email offline_access', { prompt: 'consent' });
    const { callback } = await visit(server, attempt.authorizationUrl);
    const tokens = await redeem(attempt, callback);
    t.equal(tokens.claims()?.aud, 'keyed');
    t.type(tokens.refresh_token, 'string');
    t.equal(jwks.fetches(), 1, 'the jwks_uri was read once');

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    t.type(refreshed.access_token, 'string');
    const info = await oidc.fetchUserInfo(config, refreshed.access_token, tokens.claims()!.sub);
    t.equal(info.email, ALICE.email);

    const introspected = await oidc.tokenIntrospection(config, refreshed.access_token);
    t.equal(introspected.active, true, 'RFC 7662 with private_key_jwt');
    await oidc.tokenRevocation(config, refreshed.access_token);
    t.equal((await oidc.tokenIntrospection(config, refreshed.access_token)).active, false, 'RFC 7009 with private_key_jwt');

    // The same assertion twice (a client that caches its assertion): RFC 7523 3 (7) refuses the replay.
    const fixed = await new (await import('jose')).SignJWT({ jti: 'fixed-jti', aud: server.issuer })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid })
      .setIssuer('keyed')
      .setSubject('keyed')
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(key.privateKey);
    const replaying = await discover(server, 'keyed', (_as, _client, body) => {
      body.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      body.set('client_assertion', fixed);
    });
    t.equal((await oidc.tokenIntrospection(replaying, tokens.access_token)).active, true, 'the first use is accepted');
    const replayed = await rejection(oidc.tokenIntrospection(replaying, tokens.access_token));
    t.equal(await invalidClient(replayed), 401, 'RFC 7523 3 (7): the replay is invalid_client');
  },
);

t.test('openid-client with client_secret_jwt: client credentials; the wrong secret is invalid_client', async (t) => {
  const hmac = {
    client_id: 'hmac',
    grant_types: ['client_credentials'],
    scope: 'reports',
    token_endpoint_auth_method: 'client_secret_jwt' as const,
    client_secret: HMAC_SECRET,
  };
  const server = await listenTestApp(t, { seed: { ...FIXTURES, clients: [...FIXTURES.clients, hmac] } });
  const config = await discover(server, 'hmac', oidc.ClientSecretJwt(HMAC_SECRET));
  const tokens = await oidc.clientCredentialsGrant(config, { scope: 'reports' });
  t.equal(tokens.scope, 'reports');
  const wrong = await discover(server, 'hmac', oidc.ClientSecretJwt(`${HMAC_SECRET}-not`));
  const refused = await rejection(oidc.clientCredentialsGrant(wrong, { scope: 'reports' }));
  t.equal(await invalidClient(refused), 401, 'the wrong secret is invalid_client');
});

/** RFC 6749 5.2: invalid_client is a 401 with a challenge, which openid-client reports as such; its status, or 0. */
async function invalidClient(err: unknown): Promise<number> {
  if (!(err instanceof oidc.WWWAuthenticateChallengeError)) return 0;
  const body = (await err.response.json()) as { error: string };
  return body.error === 'invalid_client' ? err.status : 0;
}
