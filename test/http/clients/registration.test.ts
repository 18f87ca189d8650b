// The client registration endpoint (RFC 7591): who may register, the client information response, and an error
// for every kind of metadata that is refused (RFC 7591 3.2.2).
import t from 'tap';
import { findClient } from '../../../src/storage/clients.js';
import { sha256 } from '../../../src/domain/secrets.js';
import { buildTestApp } from '../../helpers/app.js';
import {
  INITIAL_TOKEN,
  OTHER_INITIAL_TOKEN,
  postRegistration,
  REGISTRATION_ENV,
  WEB_METADATA,
  type ClientInformation,
} from '../../helpers/registration.js';
import { TestClock } from '../../helpers/account.js';

const { app, db } = await buildTestApp(t, { env: REGISTRATION_ENV });

const clientCount = async () => Number((await db.selectFrom('clients').select(db.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

t.test(
  'a confidential client is registered: 201 with its credentials, metadata and configuration endpoint (RFC 7591 3.2.1, RFC 7592 3)',
  async (t) => {
    const before = Math.floor(Date.now() / 1000);
    const res = await postRegistration(app, WEB_METADATA);
    t.equal(res.statusCode, 201, res.body);
    t.match(res.headers['content-type'], /^application\/json/);
    t.equal(res.headers['cache-control'], 'no-store');
    t.equal(res.headers.pragma, 'no-cache');
    const info = res.json() as ClientInformation;
    t.match(info.client_id, /^[A-Za-z0-9_-]{22}$/, '128 random bits');
    t.match(info.client_secret, /^[A-Za-z0-9_-]{43}$/, '256 random bits');
    t.ok(info.client_id_issued_at >= before && info.client_id_issued_at <= before + 5);
    t.equal(info.client_secret_expires_at, 0, 'the secret does not expire');
    t.match(info.registration_access_token, /^[A-Za-z0-9_-]{43}$/);
    t.equal(info.registration_client_uri, `http://localhost:3000/sso/register/${info.client_id}`);
    t.same(
      Object.fromEntries(
        Object.entries(info).filter(
          ([k]) =>
            ![
              'client_id',
              'client_secret',
              'client_id_issued_at',
              'client_secret_expires_at',
              'registration_access_token',
              'registration_client_uri',
            ].includes(k),
        ),
      ),
      {
        client_name: 'Registered Web App',
        redirect_uris: ['https://rp.example/cb'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'openid profile email offline_access',
        id_token_signed_response_alg: 'RS256',
      },
      'every registered field, the defaults the server chose included',
    );
  },
);

t.test('the generated client secret is stored only as a keyed digest and the registration access token as its SHA-256', async (t) => {
  const info = (await postRegistration(app, WEB_METADATA)).json() as ClientInformation;
  const row = await findClient(db, info.client_id);
  t.ok(row);
  t.match(row!.client_secret_hash, /^hmac-sha256\$/, 'HMAC-SHA256, not argon2: 256 random bits need no slow hash');
  t.equal(row!.registration_access_token_hash, sha256(info.registration_access_token));
  const stored = JSON.stringify(row);
  t.notOk(stored.includes(info.client_secret!), 'no plain secret at rest');
  t.notOk(stored.includes(info.registration_access_token), 'no plain registration access token at rest');
});

t.test('a public client (token_endpoint_auth_method none) gets no secret and no client_secret_expires_at', async (t) => {
  const res = await postRegistration(app, { redirect_uris: ['http://127.0.0.1:8123/callback'], token_endpoint_auth_method: 'none' });
  t.equal(res.statusCode, 201, res.body);
  const info = res.json() as ClientInformation;
  t.equal(info.client_secret, undefined);
  t.equal(info.client_secret_expires_at, undefined);
  t.equal(info.token_endpoint_auth_method, 'none');
  t.same(info.grant_types, ['authorization_code']);
  t.same(info.response_types, ['code']);
  t.equal((await findClient(db, info.client_id))!.client_secret_hash, null);
});

t.test('metadata the server does not understand is ignored: not stored and not returned (RFC 7591 2)', async (t) => {
  const res = await postRegistration(app, {
    ...WEB_METADATA,
    userinfo_signed_response_alg: 'PS256',
    application_type: 'web',
    'client_name#fr': 'Appli',
    favourite_colour: 42,
  });
  t.equal(res.statusCode, 201, res.body);
  const info = res.json() as ClientInformation;
  for (const field of ['userinfo_signed_response_alg', 'application_type', 'client_name#fr', 'favourite_colour'])
    t.notOk(field in info, `${field} is not returned`);
  t.same((await findClient(db, info.client_id))!.metadata, { id_token_signed_response_alg: 'RS256', scope: WEB_METADATA.scope });
});

t.test('a client_id or client_secret in the request is not taken: the server chooses both (RFC 7591 3.2.1)', async (t) => {
  const res = await postRegistration(app, { ...WEB_METADATA, client_id: 'app', client_secret: 'my-own-secret-0123456789' });
  t.equal(res.statusCode, 201, res.body);
  const info = res.json() as ClientInformation;
  t.not(info.client_id, 'app');
  t.not(info.client_secret, 'my-own-secret-0123456789');
});

t.test('a null field is read as an omitted one (RFC 7592 2.2)', async (t) => {
  const res = await postRegistration(app, { ...WEB_METADATA, client_name: null, logo_uri: null });
  t.equal(res.statusCode, 201, res.body);
  const info = res.json() as ClientInformation;
  t.notOk('client_name' in info);
  t.notOk('logo_uri' in info);
});

t.test('all the understood metadata is stored and returned as registered', async (t) => {
  const metadata = {
    client_name: 'Everything',
    redirect_uris: ['https://rp.example/cb', 'http://localhost:8080/cb', 'http://[::1]:9000/cb?x=1'],
    post_logout_redirect_uris: ['https://rp.example/bye'],
    grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code', 'client_credentials'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_post',
    contacts: ['ops@rp.example'],
    scope: 'openid email',
    logo_uri: 'https://rp.example/logo.png',
    client_uri: 'https://rp.example/',
    policy_uri: 'https://rp.example/policy',
    tos_uri: 'https://rp.example/tos',
    id_token_signed_response_alg: 'ES256',
    backchannel_logout_uri: 'https://rp.example/backchannel',
    backchannel_logout_session_required: true,
    software_id: '4NRB1-0XZABZI9E6-5SM3R',
    software_version: '2.1',
  };
  const res = await postRegistration(app, metadata);
  t.equal(res.statusCode, 201, res.body);
  t.match(res.json(), metadata);
});

t.test('initial access token', async (t) => {
  t.test('without one, registration is refused with 401 invalid_token and a Bearer challenge (RFC 6750 3.1)', async (t) => {
    const before = await clientCount();
    const res = await postRegistration(app, WEB_METADATA, { token: null });
    t.equal(res.statusCode, 401);
    t.equal(res.json().error, 'invalid_token');
    t.match(res.headers['www-authenticate'], /^Bearer /);
    t.equal(await clientCount(), before, 'nothing was registered');
  });

  t.test('a wrong one is refused with 401 invalid_token', async (t) => {
    const res = await postRegistration(app, WEB_METADATA, { token: `${INITIAL_TOKEN}x` });
    t.equal(res.statusCode, 401);
    t.equal(res.json().error, 'invalid_token');
  });

  t.test('a prefix of a configured one is refused', async (t) => {
    const res = await postRegistration(app, WEB_METADATA, { token: INITIAL_TOKEN.slice(0, -1) });
    t.equal(res.statusCode, 401);
  });

  t.test('credentials in another scheme are refused', async (t) => {
    const res = await app.inject({
      method: 'POST',
      url: '/sso/register',
      payload: JSON.stringify(WEB_METADATA),
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`x:${INITIAL_TOKEN}`).toString('base64')}` },
    });
    t.equal(res.statusCode, 401);
    t.equal(res.json().error, 'invalid_token');
  });

  t.test('each of several comma-separated tokens is accepted', async (t) => {
    t.equal((await postRegistration(app, WEB_METADATA, { token: INITIAL_TOKEN })).statusCode, 201);
    t.equal((await postRegistration(app, WEB_METADATA, { token: OTHER_INITIAL_TOKEN })).statusCode, 201);
  });

  t.test('is checked before the body is read: a bad body without a token gets 401, not 400', async (t) => {
    const res = await postRegistration(app, undefined, { token: null, raw: '{not json' });
    t.equal(res.statusCode, 401);
  });
});

t.test('request body', async (t) => {
  t.test('malformed JSON is refused with invalid_request', async (t) => {
    const res = await postRegistration(app, undefined, { raw: '{"redirect_uris": [' });
    t.equal(res.statusCode, 400);
    t.same(res.json(), { error: 'invalid_request', error_description: 'the request body is not valid JSON' });
  });

  t.test('a \\u0000 in a metadata value is refused with invalid_request, not 500, and registers nothing', async (t) => {
    const before = await db
      .selectFrom('clients')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const res = await postRegistration(app, { ...WEB_METADATA, client_name: 'Web\u0000App' });
    t.equal(res.statusCode, 400);
    t.same(res.json(), { error: 'invalid_request', error_description: 'the request holds a NUL character' });
    const after = await db
      .selectFrom('clients')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    t.equal(Number(after.n), Number(before.n));
  });

  t.test('a form body is refused with invalid_request (RFC 7591 3.1: application/json)', async (t) => {
    const res = await postRegistration(app, undefined, {
      contentType: 'application/x-www-form-urlencoded',
      raw: 'redirect_uris=https%3A%2F%2Frp.example%2Fcb',
    });
    t.equal(res.statusCode, 400);
    t.same(res.json(), { error: 'invalid_request', error_description: 'the request body must be application/json' });
  });

  t.test('a JSON array instead of an object is refused with invalid_client_metadata', async (t) => {
    const res = await postRegistration(app, [WEB_METADATA]);
    t.equal(res.statusCode, 400);
    t.equal(res.json().error, 'invalid_client_metadata');
  });
});

/** Each case: metadata to register, the RFC 7591 3.2.2 error, and a piece of the description. */
const REDIRECT_URI_CASES: Array<[string, Record<string, unknown>, RegExp]> = [
  ['a code flow client without redirect_uris', { client_name: 'x' }, /redirect_uris must be a non-empty array/],
  ['an empty redirect_uris', { redirect_uris: [] }, /redirect_uris must be a non-empty array/],
  ['redirect_uris given as a string', { redirect_uris: 'https://rp.example/cb' }, /redirect_uris must be a non-empty array/],
  ['a relative redirect URI', { redirect_uris: ['/cb'] }, /redirect_uris\[0\] is not an absolute URI/],
  [
    'a redirect URI with a fragment',
    { redirect_uris: ['https://rp.example/cb', 'https://rp.example/cb#x'] },
    /redirect_uris\[1\] must not contain a fragment/,
  ],
  ['an empty fragment', { redirect_uris: ['https://rp.example/cb#'] }, /must not contain a fragment/],
  ['http on a host other than loopback', { redirect_uris: ['http://rp.example/cb'] }, /redirect_uris\[0\] must use https/],
  ['http on a loopback-looking host name', { redirect_uris: ['http://127.0.0.1.rp.example/cb'] }, /must use https/],
  ['a private-use URI scheme', { redirect_uris: ['com.example.app:/cb'] }, /must use https/],
  ['a javascript: URI', { redirect_uris: ['javascript:alert(1)'] }, /must not use the javascript: scheme/],
  ['a data: URI', { redirect_uris: ['data:text/html,hi'] }, /must not use the data: scheme/],
  ['user credentials in a redirect URI', { redirect_uris: ['https://user:pass@rp.example/cb'] }, /must not contain user credentials/],
];

t.test('redirect URIs refused with invalid_redirect_uri (RFC 7591 3.2.2)', async (t) => {
  for (const [what, metadata, description] of REDIRECT_URI_CASES) {
    t.test(`${what} is refused and nothing is stored`, async (t) => {
      const before = await clientCount();
      const res = await postRegistration(app, metadata);
      t.equal(res.statusCode, 400, res.body);
      t.equal(res.headers['cache-control'], 'no-store');
      const body = res.json() as { error: string; error_description: string };
      t.equal(body.error, 'invalid_redirect_uri');
      t.match(body.error_description, description);
      t.equal(await clientCount(), before);
    });
  }
});

t.test('https, and http on localhost, 127.0.0.1 and [::1], are accepted redirect URIs', async (t) => {
  const uris = ['https://rp.example/cb?query=kept', 'http://localhost/cb', 'http://127.0.0.1:51234/cb', 'http://[::1]:8080/cb'];
  const res = await postRegistration(app, { redirect_uris: uris });
  t.equal(res.statusCode, 201, res.body);
  t.same(res.json().redirect_uris, uris);
});

const METADATA_CASES: Array<[string, Record<string, unknown>, RegExp]> = [
  [
    'an unknown token_endpoint_auth_method',
    { token_endpoint_auth_method: 'tls_client_auth' },
    /token_endpoint_auth_method must be one of client_secret_basic, client_secret_post, client_secret_jwt, private_key_jwt, none/,
  ],
  [
    'private_key_jwt without keys (OIDC Core 9)',
    { token_endpoint_auth_method: 'private_key_jwt' },
    /needs its public keys: jwks or jwks_uri/,
  ],
  [
    'jwks and jwks_uri together (RFC 7591 2)',
    {
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'AAAA' }] },
      jwks_uri: 'https://rp.example/jwks',
    },
    /jwks and jwks_uri must not both be present/,
  ],
  [
    'a private key in jwks (RFC 7517 4)',
    { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA', d: 'AA' }] } },
    /jwks keys\[0\] must be a public key/,
  ],
  [
    'a jwks_uri over http off loopback',
    { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'http://rp.example/jwks' },
    /jwks_uri must be an https URL/,
  ],
  [
    'a jwks_uri on this machine, for a client registering itself',
    { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://127.0.0.1/jwks' },
    /jwks_uri must not point to this machine or a private network/,
  ],
  [
    'an HMAC alg for private_key_jwt (OIDC Registration 2)',
    { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://rp.example/jwks', token_endpoint_auth_signing_alg: 'HS256' },
    /token_endpoint_auth_signing_alg must be one of RS256/,
  ],
  [
    'token_endpoint_auth_signing_alg none',
    { token_endpoint_auth_method: 'client_secret_jwt', token_endpoint_auth_signing_alg: 'none' },
    /token_endpoint_auth_signing_alg must be one of HS256, HS384, HS512/,
  ],
  ['an unsupported grant type', { grant_types: ['authorization_code', 'implicit'] }, /grant_types must be an array of/],
  ['the password grant', { grant_types: ['password'] }, /grant_types must be an array of/],
  ['an unsupported response type', { response_types: ['code', 'token'] }, /response_types may only contain 'code'/],
  [
    'response_types code without the authorization_code grant',
    { grant_types: ['client_credentials'], response_types: ['code'], scope: 'openid' },
    /go together/,
  ],
  ['the authorization_code grant without response_types code', { response_types: [] }, /go together/],
  ['an empty grant_types', { grant_types: [], response_types: [] }, /grant_types must not be empty/],
  [
    'client_credentials for a public client',
    { grant_types: ['client_credentials'], token_endpoint_auth_method: 'none' },
    /may not use client_credentials/,
  ],
  [
    'refresh_token without a grant that issues refresh tokens',
    { grant_types: ['client_credentials', 'refresh_token'] },
    /refresh_token needs authorization_code/,
  ],
  [
    'an unsupported id_token_signed_response_alg',
    { id_token_signed_response_alg: 'HS256' },
    /id_token_signed_response_alg must be one of RS256, PS256, ES256, EdDSA/,
  ],
  ['id_token_signed_response_alg none', { id_token_signed_response_alg: 'none' }, /id_token_signed_response_alg must be one of/],
  [
    'a scope this provider does not define',
    { scope: 'openid admin' },
    /scope may only contain openid, profile, email, address, phone, groups, org_roles, offline_access/,
  ],
  ['a scope that is not a string', { scope: ['openid'] }, /scope must be a string/],
  [
    'a post-logout redirect URI with a fragment',
    { post_logout_redirect_uris: ['https://rp.example/bye#x'] },
    /post_logout_redirect_uris\[0\] must not contain a fragment/,
  ],
  [
    'a post-logout redirect URI over http off loopback',
    { post_logout_redirect_uris: ['http://rp.example/bye'] },
    /post_logout_redirect_uris\[0\] must use https/,
  ],
  [
    'post_logout_redirect_uris given as a string',
    { post_logout_redirect_uris: 'https://rp.example/bye' },
    /post_logout_redirect_uris must be an array of URIs/,
  ],
  [
    'a back-channel logout URI over http off loopback',
    { backchannel_logout_uri: 'http://rp.example/bc' },
    /backchannel_logout_uri must use https/,
  ],
  [
    'a back-channel logout URI with a fragment',
    { backchannel_logout_uri: 'https://rp.example/bc#x' },
    /backchannel_logout_uri must not contain a fragment/,
  ],
  ['a back-channel logout URI that is not a URL', { backchannel_logout_uri: 42 }, /backchannel_logout_uri is not an absolute URI/],
  [
    'backchannel_logout_session_required that is not a boolean',
    { backchannel_logout_session_required: 'yes' },
    /backchannel_logout_session_required must be true or false/,
  ],
  ['a client_name that is not a string', { client_name: 42 }, /client_name must be a non-empty string/],
  ['an empty client_name', { client_name: '' }, /client_name must be a non-empty string/],
  ['a logo_uri over http off loopback', { logo_uri: 'http://rp.example/logo.png' }, /logo_uri must be an https URL/],
  ['a tos_uri that is not a URL', { tos_uri: 'terms' }, /tos_uri must be an https URL/],
  ['contacts that are not an array of strings', { contacts: 'ops@rp.example' }, /contacts must be an array of strings/],
  ['a software_id that is not a string', { software_id: 7 }, /software_id must be a non-empty string/],
];

t.test('metadata refused with invalid_client_metadata (RFC 7591 3.2.2)', async (t) => {
  for (const [what, changes, description] of METADATA_CASES) {
    t.test(`${what} is refused and nothing is stored`, async (t) => {
      const before = await clientCount();
      const res = await postRegistration(app, { ...WEB_METADATA, grant_types: undefined, ...changes });
      t.equal(res.statusCode, 400, res.body);
      const body = res.json() as { error: string; error_description: string };
      t.equal(body.error, 'invalid_client_metadata');
      t.match(body.error_description, description);
      t.equal(await clientCount(), before);
    });
  }
});

t.test('a client without the code flow needs no redirect URI, and gets no response type', async (t) => {
  const res = await postRegistration(app, { grant_types: ['client_credentials'], scope: 'profile' });
  t.equal(res.statusCode, 201, res.body);
  t.same(res.json().redirect_uris, []);
  t.same(res.json().response_types, []);
});

t.test('every problem is named in the one error', async (t) => {
  const res = await postRegistration(app, { ...WEB_METADATA, client_name: 1, scope: 'root' });
  t.equal(res.statusCode, 400);
  t.match(res.json().error_description, /client_name must be a non-empty string; scope may only contain/);
});

t.test('software statements', async (t) => {
  t.test('a well-formed one is refused with unapproved_software_statement (RFC 7591 3.2.2)', async (t) => {
    const jwt = `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from('{"software_id":"x"}').toString('base64url')}.c2lnbmF0dXJl`;
    const res = await postRegistration(app, { ...WEB_METADATA, software_statement: jwt });
    t.equal(res.statusCode, 400);
    t.equal(res.json().error, 'unapproved_software_statement');
  });

  t.test('a malformed one is refused with invalid_software_statement (RFC 7591 3.2.2)', async (t) => {
    for (const statement of ['not a jwt', 42]) {
      const res = await postRegistration(app, { ...WEB_METADATA, software_statement: statement });
      t.equal(res.statusCode, 400);
      t.equal(res.json().error, 'invalid_software_statement');
    }
  });
});

t.test('open registration (REGISTRATION_OPEN=true)', async (t) => {
  const { app: open } = await buildTestApp(t, { env: { REGISTRATION_OPEN: 'true' } });

  t.test('anyone may register, with no initial access token', async (t) => {
    const res = await postRegistration(open, WEB_METADATA, { token: null });
    t.equal(res.statusCode, 201, res.body);
  });

  t.test('an Authorization header is not looked at', async (t) => {
    const res = await postRegistration(open, WEB_METADATA, { token: 'anything-at-all' });
    t.equal(res.statusCode, 201, res.body);
  });

  t.test('the metadata rules are the same', async (t) => {
    const res = await postRegistration(open, { redirect_uris: ['http://rp.example/cb'] }, { token: null });
    t.equal(res.statusCode, 400);
    t.equal(res.json().error, 'invalid_redirect_uri');
  });
});

t.test('open registration is counted per client address, and an address past its free registrations waits (429)', async (t) => {
  const clock = new TestClock();
  const env = { REGISTRATION_OPEN: 'true', REGISTRATION_IP_FREE_ATTEMPTS: '2', SIGN_IN_LOCK_BASE_SECONDS: '60' };
  const { app: open, db: openDb } = await buildTestApp(t, { env, clock: clock.now });
  const register = (remoteAddress: string) =>
    open.inject({
      method: 'POST',
      url: '/sso/register',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(WEB_METADATA),
      remoteAddress,
    });
  const clients = async () =>
    Number(
      (
        await openDb
          .selectFrom('clients')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const before = await clients();

  t.equal((await register('203.0.113.7')).statusCode, 201);
  t.equal((await register('203.0.113.7')).statusCode, 201);
  const refused = await register('203.0.113.7');
  t.equal(refused.statusCode, 429);
  t.equal(refused.headers['retry-after'], '60');
  t.same(refused.json(), {
    error: 'temporarily_unavailable',
    error_description: 'too many registrations from this address; try again in 60 s',
  });
  t.equal(await clients(), before + 2, 'the refused request registered nothing');

  t.equal((await register('198.51.100.9')).statusCode, 201, 'another address has its own counter');
  clock.advance(61);
  t.equal((await register('203.0.113.7')).statusCode, 201, 'after the lock, one more');
  t.equal((await register('203.0.113.7')).statusCode, 429, 'and the next lock is longer');
  t.ok(Number((await register('203.0.113.7')).headers['retry-after']) > 60);

  const rows = await openDb.selectFrom('sign_in_throttle').select('key').where('key', 'like', 'registration-ip:%').execute();
  t.equal(rows.length, 2);
  t.ok(
    rows.every((r) => !r.key.includes('203.0.113') && !r.key.includes('198.51.100')),
    'addresses are stored as digests only',
  );
});

t.test('registrations with an initial access token are not counted, nor any with REGISTRATION_IP_FREE_ATTEMPTS=0', async (t) => {
  const { app: tokenApp } = await buildTestApp(t, { env: { ...REGISTRATION_ENV, REGISTRATION_IP_FREE_ATTEMPTS: '1' } });
  for (let i = 0; i < 3; i += 1) t.equal((await postRegistration(tokenApp, WEB_METADATA)).statusCode, 201);
  const { app: unthrottled } = await buildTestApp(t, { env: { REGISTRATION_OPEN: 'true', REGISTRATION_IP_FREE_ATTEMPTS: '0' } });
  for (let i = 0; i < 3; i += 1) t.equal((await postRegistration(unthrottled, WEB_METADATA, { token: null })).statusCode, 201);
});
