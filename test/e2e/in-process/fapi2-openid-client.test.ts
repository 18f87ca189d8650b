// The FAPI 2.0 Security Profile end to end: openid-client v6 as a FAPI 2.0 client (PAR, PKCE S256, private_key_jwt,
// DPoP, ES256), and each of the profile's requirements refused when a client breaks it.
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import * as oidc from 'openid-client';
import t from 'tap';
import { ALICE, FIXTURES } from '../../helpers/app.js';
import { clientKey, jwksOf } from '../../helpers/client-keys.js';
import { visit } from '../../helpers/fetch-browser.js';
import { listenTestApp } from '../../helpers/listening.js';
import { discover, prepareAttempt, rejection } from '../../helpers/relying-party.js';

const REDIRECT = 'https://bank-app.example/cb';

t.test('FAPI 2.0: a whole flow through openid-client, and every requirement refused when broken', async (t) => {
  const key = await clientKey('ES256');
  const rsaKey = await clientKey('RS256');
  const bank = {
    client_id: 'bank-app',
    profile: 'fapi2',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: 'private_key_jwt' as const,
    jwks: jwksOf(key, rsaKey),
    id_token_signed_response_alg: 'ES256',
  };
  const server = await listenTestApp(t, {
    seed: { ...FIXTURES, clients: [...FIXTURES.clients, bank] } as never,
    env: { CODE_TTL_SECONDS: '300' },
  });
  const config = await discover(server, bank.client_id, oidc.PrivateKeyJwt({ key: key.privateKey, kid: key.kid }));
  const dpop = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));

  // The whole flow: PAR (RFC 9126), PKCE S256, private_key_jwt (aud = issuer), DPoP, iss in the response (RFC 9207).
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = await oidc.buildAuthorizationUrlWithPAR(
    config,
    {
      redirect_uri: REDIRECT,
      scope: 'openid profile offline_access',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    },
    { DPoP: dpop },
  );
  t.match(url.searchParams.get('request_uri'), /^urn:ietf:params:oauth:request_uri:/);
  const { callback } = await visit(server, url);
  t.equal(callback.searchParams.get('iss'), server.issuer, 'FAPI 2.0 5.3.2.2 / RFC 9207: iss in the authorization response');
  const tokens = await oidc.authorizationCodeGrant(
    config,
    callback,
    { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce },
    undefined,
    { DPoP: dpop },
  );
  t.equal(tokens.token_type.toLowerCase(), 'dpop', 'FAPI 2.0 5.3.2.1: a sender-constrained access token');
  const info = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub, { DPoP: dpop });
  t.equal(info.name, ALICE.name);
  const code = await server.db
    .selectFrom('authorization_codes')
    .select(['issued_at', 'expires_at'])
    .where('client_id', '=', bank.client_id)
    .executeTakeFirstOrThrow();
  t.equal(
    (code.expires_at.getTime() - code.issued_at.getTime()) / 1000,
    60,
    'FAPI 2.0 5.3.2.1 (6): the code lived 60 s, whatever CODE_TTL_SECONDS says',
  );

  // 5.3.2.2 (2): an authorization request that was not pushed.
  const direct = await prepareAttempt(config, REDIRECT, 'openid');
  const notPushed = await fetch(direct.authorizationUrl, { redirect: 'manual' });
  t.equal(new URL(notPushed.headers.get('location')!).searchParams.get('error'), 'invalid_request', 'not pushed: refused');

  // 5.3.2.2 (4): a pushed request without PKCE.
  const noPkce = await rejection(oidc.buildAuthorizationUrlWithPAR(config, { redirect_uri: REDIRECT, scope: 'openid' }, { DPoP: dpop }));
  t.equal((noPkce as oidc.ResponseBodyError).error, 'invalid_request', 'no PKCE: refused at the PAR endpoint');

  // 5.3.2.1 (5): a token request without a DPoP proof.
  const withoutDpop = await oidc
    .buildAuthorizationUrlWithPAR(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    })
    .then(async (u) => {
      const { callback: cb } = await visit(server, u);
      return rejection(oidc.authorizationCodeGrant(config, cb, { pkceCodeVerifier: verifier, expectedState: state }));
    });
  t.equal((withoutDpop as oidc.ResponseBodyError).error, 'invalid_dpop_proof', 'no DPoP proof: refused');

  // 5.4.1: an RS256 client assertion; 5.3.2.1 (8): an assertion whose aud is the token endpoint, not the issuer.
  const assertion = (signWith: typeof key, aud: string) =>
    new SignJWT({ jti: randomUUID() })
      .setProtectedHeader({ alg: signWith.alg, kid: signWith.kid })
      .setIssuer(bank.client_id)
      .setSubject(bank.client_id)
      .setAudience(aud)
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(signWith.privateKey);
  const par = (jwt: string) =>
    fetch(`${server.issuer}/par`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: bank.client_id,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: jwt,
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      }),
    });
  t.equal((await par(await assertion(key, server.issuer))).status, 201, 'ES256, aud the issuer: accepted');
  t.equal((await par(await assertion(rsaKey, server.issuer))).status, 401, 'RS256: refused (invalid_client)');
  t.equal((await par(await assertion(key, `${server.issuer}/token`))).status, 401, 'aud the token endpoint: refused');
});

t.test('FAPI 2.0 registration rules: private_key_jwt and PS256, ES256 or EdDSA only', async (t) => {
  const { parseSeed } = await import('../../../src/domain/admin/seed.js');
  const base = { client_id: 'x', redirect_uris: [REDIRECT], profile: 'fapi2', jwks: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'AA' }] } };
  const refused = (entry: Record<string, unknown>) =>
    rejection(Promise.resolve().then(() => parseSeed({ clients: [entry], users: [] }))).then((e) => String(e));
  t.match(
    await refused({
      ...base,
      token_endpoint_auth_method: 'client_secret_basic',
      client_secret: 'x'.repeat(32),
      id_token_signed_response_alg: 'ES256',
    }),
    /token_endpoint_auth_method must be private_key_jwt for FAPI 2.0/,
  );
  t.match(
    await refused({ ...base, token_endpoint_auth_method: 'private_key_jwt' }),
    /id_token_signed_response_alg must be one of PS256, ES256, EdDSA for FAPI 2.0/,
  );
  t.match(
    await refused({
      ...base,
      token_endpoint_auth_method: 'private_key_jwt',
      id_token_signed_response_alg: 'EdDSA',
      token_endpoint_auth_signing_alg: 'RS256',
    }),
    /token_endpoint_auth_signing_alg must be one of PS256, ES256, EdDSA/,
  );
  t.equal(
    await refused({ ...base, token_endpoint_auth_method: 'private_key_jwt', id_token_signed_response_alg: 'PS256' }),
    'undefined',
    'a FAPI 2.0 client as the profile wants it',
  );
});
