// The discovery document (OIDC Discovery 1.0) and the JWK Set it points to (RFC 7517, OIDC Core 10.1).
import pino from 'pino';
import t, { type Test } from 'tap';
import { buildApp } from '../../src/app.js';
import { buildTestApp, testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';

const ISSUER = 'http://localhost:3000/sso';
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];

t.test('discovery and jwks', async (t) => {
  const { app, config } = await buildTestApp(t);

  const discovery = async (t: Test) => {
    const res = await app.inject({ method: 'GET', url: '/sso/.well-known/openid-configuration' });
    t.equal(res.statusCode, 200, res.body);
    t.match(res.headers['content-type'], /^application\/json/);
    return res.json() as Record<string, unknown>;
  };

  t.test('the issuer is the configured issuer, character for character (Discovery 3, 4.3)', async (t) => {
    const doc = await discovery(t);
    t.equal(config.issuer, ISSUER);
    t.equal(doc.issuer, ISSUER);
  });

  t.test('every endpoint is an absolute URL under the issuer (Discovery 3)', async (t) => {
    const doc = await discovery(t);
    const endpoints = ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'jwks_uri'];
    for (const name of endpoints) {
      const value = doc[name];
      t.type(value, 'string', `${name} is present`);
      t.ok(new URL(String(value)).protocol.startsWith('http'), `${name} is absolute`);
      t.ok(String(value).startsWith(`${ISSUER}/`), `${name} (${String(value)}) is under the issuer`);
    }
    t.equal(doc.authorization_endpoint, `${ISSUER}/authorize`);
    t.equal(doc.token_endpoint, `${ISSUER}/token`);
    t.equal(doc.jwks_uri, `${ISSUER}/jwks`);
  });

  t.test('the advertised endpoints answer where they say they are (Discovery 3)', async (t) => {
    const doc = await discovery(t);
    const jwks = await app.inject({ method: 'GET', url: new URL(String(doc.jwks_uri)).pathname });
    t.equal(jwks.statusCode, 200);
    const token = await app.inject({ method: 'POST', url: new URL(String(doc.token_endpoint)).pathname, payload: {} });
    t.not(token.statusCode, 404, 'token endpoint exists');
    const userinfo = await app.inject({ method: 'GET', url: new URL(String(doc.userinfo_endpoint)).pathname });
    t.equal(userinfo.statusCode, 401, 'userinfo endpoint exists and wants a token');
    const device = await app.inject({
      method: 'POST',
      url: new URL(String(doc.device_authorization_endpoint)).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    t.equal(device.statusCode, 401, 'device authorization endpoint (RFC 8628 4) exists and wants a client');
  });

  t.test('only the code response type and the S256 PKCE method are advertised (Discovery 3, RFC 8414 2)', async (t) => {
    const doc = await discovery(t);
    t.same(doc.response_types_supported, ['code']);
    t.same(doc.code_challenge_methods_supported, ['S256']);
  });

  t.test('grant_types_supported lists only the grants that work (Discovery 3)', async (t) => {
    const doc = await discovery(t);
    t.same(doc.grant_types_supported, [
      'authorization_code',
      'refresh_token',
      'client_credentials',
      'urn:ietf:params:oauth:grant-type:device_code',
    ]);
  });

  t.test(
    'the client authentication methods that work are advertised per endpoint, with their algs (Discovery 3, RFC 8414 2)',
    async (t) => {
      const doc = await discovery(t);
      const all = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none'];
      t.same(doc.token_endpoint_auth_methods_supported, all);
      t.same(doc.revocation_endpoint_auth_methods_supported, all, 'RFC 7009 5: public clients revoke with their client_id');
      t.same(doc.introspection_endpoint_auth_methods_supported, all.slice(0, 4), 'introspection is for confidential clients');
      for (const field of ['token', 'revocation', 'introspection']) {
        const algs = doc[`${field}_endpoint_auth_signing_alg_values_supported`] as string[];
        t.ok(algs.includes('HS256') && algs.includes('ES256') && algs.includes('PS256') && algs.includes('EdDSA'), field);
        t.notOk(algs.includes('none'), `${field}: "none" MUST NOT be used (RFC 8414 2)`);
      }
    },
  );

  t.test('the iss authorization response parameter is advertised (RFC 9207 3)', async (t) => {
    const doc = await discovery(t);
    t.equal(doc.authorization_response_iss_parameter_supported, true);
  });

  t.test('RS256 is among the ID token signing algorithms (Discovery 3, OIDC Core 15.1)', async (t) => {
    const doc = await discovery(t);
    t.ok((doc.id_token_signing_alg_values_supported as string[]).includes('RS256'));
    t.notOk((doc.id_token_signing_alg_values_supported as string[]).includes('none'));
  });

  t.test('scopes_supported includes openid, profile and email (Discovery 3)', async (t) => {
    const doc = await discovery(t);
    const scopes = doc.scopes_supported as string[];
    for (const scope of ['openid', 'profile', 'email']) t.ok(scopes.includes(scope), scope);
    // The groups scope and its claim (src/domain/authorization/scope.ts), which userinfo and ID tokens release.
    t.ok(scopes.includes('groups'), 'groups');
    t.ok((doc.claims_supported as string[]).includes('groups'), 'claims_supported lists groups');
  });

  t.test('ui_locales_supported lists the languages the pages speak: English, German and French (Discovery 3)', async (t) => {
    const doc = await discovery(t);
    t.same(doc.ui_locales_supported, ['en', 'de', 'fr']);
  });

  t.test('signed request objects are advertised; request_uri only as the PAR endpoint (Discovery 3, RFC 9126 5)', async (t) => {
    const doc = await discovery(t);
    t.equal(doc.request_parameter_supported, true);
    t.notOk((doc.request_object_signing_alg_values_supported as string[]).includes('none'), 'RFC 9101: unsigned objects refused');
    t.equal(doc.request_uri_parameter_supported, false, 'no request_uri is fetched: only those of the PAR endpoint resolve');
    t.equal(doc.pushed_authorization_request_endpoint, `${ISSUER}/par`);
    t.equal(doc.require_pushed_authorization_requests, false);
  });

  t.test('registration is off by default: no registration_endpoint, and nothing at /register (RFC 7591, RFC 8414 2)', async (t) => {
    const doc = await discovery(t);
    t.notOk('registration_endpoint' in doc);
    const res = await app.inject({ method: 'POST', url: '/sso/register', headers: { 'content-type': 'application/json' }, payload: '{}' });
    t.equal(res.statusCode, 404);
  });

  t.test('the JWK Set holds only public members, each key with kid, alg and use "sig" (RFC 7517 4, RFC 7518 6.3.2)', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/sso/jwks' });
    t.equal(res.statusCode, 200);
    t.match(res.headers['content-type'], /^application\/(jwk-set\+)?json/);
    const { keys } = res.json() as { keys: Array<Record<string, unknown>> };
    t.same(
      keys.map((k) => k.alg),
      ['RS256', 'PS256', 'ES256', 'EdDSA'],
      'one current key per algorithm',
    );
    const shapes: Record<string, Record<string, unknown>> = {
      RS256: { kty: 'RSA', n: String, e: 'AQAB' },
      PS256: { kty: 'RSA', n: String, e: 'AQAB' },
      ES256: { kty: 'EC', crv: 'P-256', x: String, y: String },
      EdDSA: { kty: 'OKP', crv: 'Ed25519', x: String },
    };
    for (const key of keys) {
      for (const member of PRIVATE_MEMBERS) t.notOk(member in key, `no private member "${member}"`);
      t.type(key.kid, 'string');
      t.ok(String(key.kid).length > 0);
      t.equal(key.use, 'sig');
      t.match(key, shapes[String(key.alg)], `${String(key.alg)} key members`);
    }
    t.equal(new Set(keys.map((k) => k.kid)).size, keys.length, 'kids are unique');
  });
});

t.test('two instances on one database publish the same signing key, and another database a different one (OIDC Core 10.1)', async (t) => {
  const config = testConfig();
  const logger = pino({ level: 'silent' });
  const shared = await createTestDatabase();
  const other = await createTestDatabase();
  const apps = [
    await buildApp(config, { db: shared.handle.db, logger }),
    await buildApp(config, { db: shared.handle.db, logger }),
    await buildApp(config, { db: other.handle.db, logger }),
  ];
  t.teardown(async () => {
    for (const app of apps) await app.close();
    await shared.drop();
    await other.drop();
  });
  const kids: string[][] = [];
  for (const app of apps) {
    const res = await app.inject({ method: 'GET', url: '/sso/jwks' });
    t.equal(res.statusCode, 200);
    kids.push((res.json() as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid));
  }
  t.equal(kids[0]!.length, 4, 'one key per algorithm');
  t.same(kids[1], kids[0], 'the second instance loaded the keys the first one stored');
  t.same(
    kids[2]!.filter((kid) => kids[0]!.includes(kid)),
    [],
    'a database of its own generates keys of its own',
  );
});

t.test('with registration on, registration_endpoint is advertised and answers there (RFC 7591 3, RFC 8414 2)', async (t) => {
  const { app } = await buildTestApp(t, { env: { REGISTRATION_INITIAL_ACCESS_TOKEN: 'discovery-test-initial-access-token-0123' } });
  const doc = (await app.inject({ method: 'GET', url: '/sso/.well-known/openid-configuration' })).json() as Record<string, unknown>;
  t.equal(doc.registration_endpoint, `${ISSUER}/register`);
  const res = await app.inject({
    method: 'POST',
    url: new URL(String(doc.registration_endpoint)).pathname,
    headers: { 'content-type': 'application/json' },
    payload: '{}',
  });
  t.equal(res.statusCode, 401, 'the endpoint exists and wants an initial access token');
  t.equal(res.json().error, 'invalid_token');
});
