// Interoperability of pushed and signed authorization requests (RFC 9126, RFC 9101): openid-client v6 as the relying
// party with buildAuthorizationUrlWithPAR and buildAuthorizationUrlWithJAR, against the provider listening.
import * as oidc from 'openid-client';
import t from 'tap';
import { ALICE, FIXTURES } from '../../helpers/app.js';
import { clientKey, jwksOf, servedJwks } from '../../helpers/client-keys.js';
import { visit } from '../../helpers/fetch-browser.js';
import { listenTestApp } from '../../helpers/listening.js';
import { discover, redeem, type Attempt } from '../../helpers/relying-party.js';

const REDIRECT = 'https://keyed.example/cb';
const SCOPE = 'openid profile email';

/** The parameters of an authorization request with PKCE S256, state and nonce, and the checks of its response. */
async function parameters(config: oidc.Configuration, redirectUri: string) {
  const verifier = oidc.randomPKCECodeVerifier();
  const nonce = oidc.randomNonce();
  const state = oidc.randomState();
  const params = {
    redirect_uri: redirectUri,
    scope: SCOPE,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    nonce,
    state,
  };
  const attempt = (authorizationUrl: URL): Attempt => ({
    config,
    authorizationUrl,
    verifier,
    nonce,
    state,
    checks: { pkceCodeVerifier: verifier, expectedNonce: nonce, expectedState: state, idTokenExpected: true },
  });
  return { params, attempt };
}

t.test(
  'openid-client with PAR and private_key_jwt (RFC 9126 2.1, 4): signs in through the pushed request; its request_uri does not work twice',
  async (t) => {
    const key = await clientKey('ES256');
    const jwks = await servedJwks(t, jwksOf(key));
    const keyed = {
      client_id: 'keyed',
      client_name: 'Keyed App',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'private_key_jwt' as const,
      jwks_uri: jwks.uri,
      require_pushed_authorization_requests: true,
    };
    const server = await listenTestApp(t, { seed: { ...FIXTURES, clients: [...FIXTURES.clients, keyed] } });
    const config = await discover(server, 'keyed', oidc.PrivateKeyJwt({ key: key.privateKey, kid: key.kid }));
    t.equal(config.serverMetadata().pushed_authorization_request_endpoint, `${server.issuer}/par`);

    const { params, attempt } = await parameters(config, REDIRECT);
    const url = await oidc.buildAuthorizationUrlWithPAR(config, params);
    t.same([...url.searchParams.keys()].sort(), ['client_id', 'request_uri'], 'the URL carries only client_id and request_uri');
    const { callback } = await visit(server, url);
    const tokens = await redeem(attempt(url), callback);
    t.equal(tokens.claims()?.aud, 'keyed');
    const info = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
    t.equal(info.email, ALICE.email);

    // RFC 9126 4: "treat request_uri values as one-time use".
    const again = await visit(server, url);
    t.equal(again.callback.searchParams.get('error'), 'invalid_request_uri', 'the same request_uri a second time');
    // RFC 9126 6: this client may not send its request in the URL.
    const direct = await visit(server, oidc.buildAuthorizationUrl(config, (await parameters(config, REDIRECT)).params));
    t.equal(direct.callback.searchParams.get('error'), 'invalid_request', 'require_pushed_authorization_requests');
  },
);

t.test('openid-client with JAR (RFC 9101), alone and pushed (RFC 9126 3): a signed request object is the request', async (t) => {
  const key = await clientKey('PS256');
  const signed = {
    client_id: 'signed',
    client_name: 'Signed App',
    redirect_uris: ['https://signed.example/cb'],
    token_endpoint_auth_method: 'private_key_jwt' as const,
    jwks: jwksOf(key),
    request_object_signing_alg: 'PS256',
  };
  const server = await listenTestApp(t, { seed: { ...FIXTURES, clients: [...FIXTURES.clients, signed] } });
  const config = await discover(server, 'signed', oidc.PrivateKeyJwt({ key: key.privateKey, kid: key.kid }));
  const metadata = config.serverMetadata();
  t.equal(metadata.request_parameter_supported, true);
  t.ok(metadata.request_object_signing_alg_values_supported?.includes('PS256'));

  const jar = await parameters(config, 'https://signed.example/cb');
  const url = await oidc.buildAuthorizationUrlWithJAR(config, jar.params, { key: key.privateKey, kid: key.kid });
  t.ok(url.searchParams.has('request'), 'the request object in `request`');
  t.notOk(url.searchParams.has('redirect_uri'), 'and nothing else of the request beside it');
  const tokens = await redeem(jar.attempt(url), (await visit(server, url)).callback);
  t.equal(tokens.claims()?.aud, 'signed');

  const both = await parameters(config, 'https://signed.example/cb');
  const object = await oidc.buildAuthorizationUrlWithJAR(config, both.params, { key: key.privateKey, kid: key.kid });
  const pushedUrl = await oidc.buildAuthorizationUrlWithPAR(config, object.searchParams);
  t.ok(pushedUrl.searchParams.has('request_uri'));
  const pushedTokens = await redeem(both.attempt(pushedUrl), (await visit(server, pushedUrl)).callback);
  t.equal(pushedTokens.claims()?.nonce, both.attempt(pushedUrl).nonce, 'the nonce signed into the pushed object');
});
