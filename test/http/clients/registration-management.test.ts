// The client configuration endpoint (RFC 7592): read, update and delete with the registration access token, its
// errors, and what a change means for the client's use everywhere (codes, tokens, remembered copies, instances).
import pino from 'pino';
import t, { type Test } from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { findClient, findClientRevision } from '../../../src/storage/clients.js';
import { buildTestApp, CONFIDENTIAL } from '../../helpers/app.js';
import { authorizePath, basicAuth, Browser, obtainCode, tokenRequest } from '../../helpers/flow.js';
import {
  configurationPath,
  manage,
  register,
  REGISTRATION_ENV,
  updateBody,
  WEB_METADATA,
  type ClientInformation,
} from '../../helpers/registration.js';

const SECRET_TTL = 3600;
const { app, db, config, advance } = await buildTestApp(t, {
  env: { ...REGISTRATION_ENV, REGISTRATION_CLIENT_SECRET_TTL_SECONDS: String(SECRET_TTL) },
});

/** RFC 6750 3.1 as RFC 7592 2.1 asks: 401, invalid_token, a Bearer challenge. */
function assertInvalidToken(t: Test, res: LightMyRequestResponse): void {
  t.equal(res.statusCode, 401, res.body);
  t.equal(res.json().error, 'invalid_token');
  t.match(res.headers['www-authenticate'], /^Bearer realm="sso", error="invalid_token"/);
}

/** A code for `client` through the sign-in and consent pages, redeemed with its secret: the token response. */
async function signInWith(client: ClientInformation, secret = client.client_secret!) {
  const { code, verifier, redirectUri } = await obtainCode(app, {
    client_id: client.client_id,
    redirect_uri: (client.redirect_uris as string[])[0],
    scope: 'openid offline_access',
  });
  return tokenRequest(
    app,
    { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier },
    basicAuth(client.client_id, secret),
  );
}

t.test('read (RFC 7592 2.1)', async (t) => {
  const info = await register(app);

  t.test('returns the registration as registered, without the secret, with the same token and URI', async (t) => {
    const res = await manage(app, 'GET', info.client_id, info.registration_access_token);
    t.equal(res.statusCode, 200, res.body);
    t.equal(res.headers['cache-control'], 'no-store');
    t.equal(res.headers.pragma, 'no-cache');
    const { client_secret: _secret, ...expected } = info;
    t.same(res.json(), expected);
  });

  t.test('without a token: 401 invalid_token', async (t) => {
    assertInvalidToken(t, await manage(app, 'GET', info.client_id, null));
  });

  t.test('with a wrong token: 401 invalid_token', async (t) => {
    assertInvalidToken(t, await manage(app, 'GET', info.client_id, `${info.registration_access_token.slice(0, -2)}xx`));
  });

  t.test('with the client secret instead of the token: 401 invalid_token', async (t) => {
    assertInvalidToken(t, await manage(app, 'GET', info.client_id, info.client_secret!));
  });

  t.test('with a Basic header: 401 invalid_token', async (t) => {
    const res = await app.inject({
      method: 'GET',
      url: configurationPath(info.client_id),
      headers: { authorization: basicAuth(info.client_id, info.client_secret!) },
    });
    assertInvalidToken(t, res);
  });

  t.test('a seeded client has no configuration endpoint: 401, never 404', async (t) => {
    assertInvalidToken(t, await manage(app, 'GET', CONFIDENTIAL.client_id, 'a-token-that-was-never-issued-0123456789'));
  });

  t.test('POST and PATCH on the configuration endpoint are 405 (RFC 7592 2)', async (t) => {
    for (const method of ['POST', 'PATCH'] as const) {
      const res = await manage(app, method, info.client_id, info.registration_access_token, {});
      t.equal(res.statusCode, 405, method);
      t.equal(res.headers.allow, 'GET, PUT, DELETE');
    }
  });
});

t.test('a token presented for another client, existing or not, gets 401 and is revoked (RFC 7592 2.1)', async (t) => {
  for (const target of ['another registered client', 'a client that does not exist']) {
    t.test(`for ${target}`, async (t) => {
      const owner = await register(app);
      const other = target === 'a client that does not exist' ? 'no-such-client' : (await register(app)).client_id;
      const res = await manage(app, 'GET', other, owner.registration_access_token);
      assertInvalidToken(t, res);
      t.same(
        res.json(),
        (await manage(app, 'GET', 'no-such-client', 'never-issued-token-0123456789')).json(),
        'the same answer as an unknown token',
      );
      assertInvalidToken(t, await manage(app, 'GET', owner.client_id, owner.registration_access_token));
      t.equal((await findClient(db, owner.client_id))!.registration_access_token_hash, null, 'the token is revoked');
      const tokens = await signInWith(owner);
      t.equal(tokens.statusCode, 200, 'the client itself still works: only its registration access token is gone');
    });
  }
});

t.test('update (RFC 7592 2.2)', async (t) => {
  t.test('replaces the metadata: a changed field changes, an omitted one is removed, and the revision rises', async (t) => {
    const info = await register(app, { ...WEB_METADATA, logo_uri: 'https://rp.example/logo.png' });
    const before = await findClientRevision(db, info.client_id);
    const { logo_uri: _logo, ...withoutLogo } = updateBody(info);
    const res = await manage(app, 'PUT', info.client_id, info.registration_access_token, {
      ...withoutLogo,
      client_name: 'Renamed',
      redirect_uris: ['https://rp.example/cb2'],
    });
    t.equal(res.statusCode, 200, res.body);
    t.equal(res.headers['cache-control'], 'no-store');
    const updated = res.json() as ClientInformation;
    t.equal(updated.client_name, 'Renamed');
    t.same(updated.redirect_uris, ['https://rp.example/cb2']);
    t.notOk('logo_uri' in updated, 'an omitted field is deleted');
    t.notOk('client_secret' in updated, 'the secret is not issued again');
    t.equal(updated.registration_access_token, info.registration_access_token);
    t.equal(updated.client_secret_expires_at, info.client_secret_expires_at);
    t.equal(await findClientRevision(db, info.client_id), before! + 1);
    t.same((await manage(app, 'GET', info.client_id, info.registration_access_token)).json(), updated, 'a read returns the update');
    t.equal((await signInWith({ ...info, redirect_uris: ['https://rp.example/cb2'] })).statusCode, 200, 'the old secret still works');
  });

  t.test('the right client_secret may be sent along', async (t) => {
    const info = await register(app);
    const res = await manage(
      app,
      'PUT',
      info.client_id,
      info.registration_access_token,
      updateBody(info, { client_secret: info.client_secret }),
    );
    t.equal(res.statusCode, 200, res.body);
  });

  t.test('a wrong client_secret is refused with invalid_request, and nothing changes', async (t) => {
    const info = await register(app);
    const before = await findClientRevision(db, info.client_id);
    const res = await manage(
      app,
      'PUT',
      info.client_id,
      info.registration_access_token,
      updateBody(info, { client_secret: 'chosen-by-the-client-0123456789', client_name: 'x' }),
    );
    t.equal(res.statusCode, 400);
    t.same(res.json(), {
      error: 'invalid_request',
      error_description: 'client_secret does not match the current client secret (RFC 7592 2.2)',
    });
    t.equal(await findClientRevision(db, info.client_id), before);
  });

  t.test('without client_id, or with another one, is refused with invalid_request', async (t) => {
    const info = await register(app);
    const { client_id: _id, ...noId } = updateBody(info);
    for (const body of [noId, { ...noId, client_id: CONFIDENTIAL.client_id }]) {
      const res = await manage(app, 'PUT', info.client_id, info.registration_access_token, body);
      t.equal(res.statusCode, 400);
      t.equal(res.json().error, 'invalid_request');
      t.match(res.json().error_description, /^client_id must be sent/);
    }
  });

  t.test('each of the four fields the server provisions is refused with invalid_request', async (t) => {
    const info = await register(app);
    for (const field of ['registration_access_token', 'registration_client_uri', 'client_secret_expires_at', 'client_id_issued_at']) {
      const res = await manage(app, 'PUT', info.client_id, info.registration_access_token, updateBody(info, { [field]: info[field] }));
      t.equal(res.statusCode, 400, field);
      t.same(res.json(), { error: 'invalid_request', error_description: `${field} must not be sent in an update (RFC 7592 2.2)` });
    }
  });

  t.test('invalid metadata is refused as at registration, and nothing changes', async (t) => {
    const info = await register(app);
    const before = await findClientRevision(db, info.client_id);
    const badUri = await manage(
      app,
      'PUT',
      info.client_id,
      info.registration_access_token,
      updateBody(info, { redirect_uris: ['http://rp.example/cb'] }),
    );
    t.equal(badUri.statusCode, 400);
    t.equal(badUri.json().error, 'invalid_redirect_uri');
    const badScope = await manage(app, 'PUT', info.client_id, info.registration_access_token, updateBody(info, { scope: 'openid admin' }));
    t.equal(badScope.statusCode, 400);
    t.equal(badScope.json().error, 'invalid_client_metadata');
    const notObject = await manage(app, 'PUT', info.client_id, info.registration_access_token, 'client_name');
    t.equal(notObject.statusCode, 400);
    t.equal(notObject.json().error, 'invalid_client_metadata');
    t.equal(await findClientRevision(db, info.client_id), before);
  });

  t.test('without a token, or with a wrong one: 401 invalid_token, and nothing changes', async (t) => {
    const info = await register(app);
    const before = await findClientRevision(db, info.client_id);
    assertInvalidToken(t, await manage(app, 'PUT', info.client_id, null, updateBody(info, { client_name: 'x' })));
    assertInvalidToken(t, await manage(app, 'PUT', info.client_id, 'wrong-token-0123456789abcdef', updateBody(info, { client_name: 'x' })));
    t.equal(await findClientRevision(db, info.client_id), before);
  });

  t.test('becoming public drops the secret; becoming confidential again issues a new one, shown once', async (t) => {
    const info = await register(app);
    const pub = await manage(
      app,
      'PUT',
      info.client_id,
      info.registration_access_token,
      updateBody(info, { token_endpoint_auth_method: 'none', grant_types: ['authorization_code'] }),
    );
    t.equal(pub.statusCode, 200, pub.body);
    t.notOk('client_secret' in pub.json());
    t.notOk('client_secret_expires_at' in pub.json());
    t.equal((await findClient(db, info.client_id))!.client_secret_hash, null);

    const conf = await manage(
      app,
      'PUT',
      info.client_id,
      info.registration_access_token,
      updateBody(pub.json() as ClientInformation, { token_endpoint_auth_method: 'client_secret_post' }),
    );
    t.equal(conf.statusCode, 200, conf.body);
    const renewed = conf.json() as ClientInformation;
    t.match(renewed.client_secret, /^[A-Za-z0-9_-]{43}$/);
    t.not(renewed.client_secret, info.client_secret);
    t.ok(renewed.client_secret_expires_at! > 0);
    t.notOk('client_secret' in (await manage(app, 'GET', info.client_id, info.registration_access_token)).json(), 'shown once');
    t.equal((await signInWith(info, renewed.client_secret)).statusCode, 200, 'the new secret works');
    t.equal((await signInWith(info, info.client_secret)).statusCode, 401, 'the first secret does not');
  });
});

t.test('delete (RFC 7592 2.3)', async (t) => {
  t.test('answers 204, and the client, its token and its registration are gone everywhere', async (t) => {
    const info = await register(app);
    const issued = await signInWith(info);
    t.equal(issued.statusCode, 200, issued.body);
    const { access_token: accessToken, refresh_token: refreshToken } = issued.json() as { access_token: string; refresh_token: string };
    t.ok(refreshToken);

    const res = await manage(app, 'DELETE', info.client_id, info.registration_access_token);
    t.equal(res.statusCode, 204);
    t.equal(res.body, '');
    t.equal(await findClient(db, info.client_id), undefined);

    assertInvalidToken(t, await manage(app, 'GET', info.client_id, info.registration_access_token));
    const userinfo = await app.inject({ method: 'GET', url: '/sso/userinfo', headers: { authorization: `Bearer ${accessToken}` } });
    t.equal(userinfo.statusCode, 401, 'its access token is revoked');
    const refresh = await tokenRequest(
      app,
      { grant_type: 'refresh_token', refresh_token: refreshToken },
      basicAuth(info.client_id, info.client_secret!),
    );
    t.equal(refresh.statusCode, 401, 'its refresh token cannot be used: the client is unknown');
    t.equal(refresh.json().error, 'invalid_client');
    const authorize = await new Browser().request(
      app,
      'GET',
      authorizePath({
        response_type: 'code',
        client_id: info.client_id,
        redirect_uri: (info.redirect_uris as string[])[0],
        scope: 'openid',
        state: 's',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      }),
    );
    t.equal(authorize.statusCode, 400, 'the authorization endpoint no longer knows it');
    t.notOk(authorize.headers.location, 'and never redirects to its URI');
  });

  t.test("without a token or with another client's: 401, and the client stays", async (t) => {
    const info = await register(app);
    assertInvalidToken(t, await manage(app, 'DELETE', info.client_id, null));
    assertInvalidToken(t, await manage(app, 'DELETE', info.client_id, 'wrong-token-0123456789abcdef'));
    t.ok(await findClient(db, info.client_id));
  });
});

t.test('a registered client works at once on another instance, and its update reaches that instance at once', async (t) => {
  const other = await buildApp(config, { db, logger: pino({ level: 'silent' }) });
  t.teardown(() => other.close());
  const info = await register(app, { ...WEB_METADATA, redirect_uris: ['https://rp.example/a', 'https://rp.example/b'] });

  const viaB = (instance: typeof app, browser: Browser) =>
    browser.request(
      instance,
      'GET',
      authorizePath({
        response_type: 'code',
        client_id: info.client_id,
        redirect_uri: 'https://rp.example/b',
        scope: 'openid',
        state: 's',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      }),
    );
  const { browser } = await obtainCode(other, { client_id: info.client_id, redirect_uri: 'https://rp.example/b' });
  const warm = await viaB(other, browser);
  t.equal(warm.statusCode, 303, 'the other instance answers with a code: it now remembers the client');
  t.match(String(warm.headers.location), /^https:\/\/rp\.example\/b\?code=/);

  const res = await manage(
    app,
    'PUT',
    info.client_id,
    info.registration_access_token,
    updateBody(info, { redirect_uris: ['https://rp.example/a'] }),
  );
  t.equal(res.statusCode, 200, res.body);
  const after = await viaB(other, browser);
  t.equal(after.statusCode, 400, 'the removed redirect URI is refused by the other instance at once');
  t.notOk(after.headers.location);
});

t.test('client_secret_expires_at: an expired secret is refused, and reading the registration issues a new one', async (t) => {
  const info = await register(app, { grant_types: ['client_credentials'], scope: 'profile' });
  t.equal(info.client_secret_expires_at, info.client_id_issued_at + SECRET_TTL);
  const grant = (secret: string) => tokenRequest(app, { grant_type: 'client_credentials' }, basicAuth(info.client_id, secret));
  t.equal((await grant(info.client_secret!)).statusCode, 200, 'the secret works before it expires');

  advance(SECRET_TTL + 1);
  const expired = await grant(info.client_secret!);
  t.equal(expired.statusCode, 401, 'and not after, even though it was remembered as verified');
  t.equal(expired.json().error, 'invalid_client');

  const read = await manage(app, 'GET', info.client_id, info.registration_access_token);
  t.equal(read.statusCode, 200, read.body);
  const renewed = read.json() as ClientInformation;
  t.match(renewed.client_secret, /^[A-Za-z0-9_-]{43}$/);
  t.ok(renewed.client_secret_expires_at! >= info.client_secret_expires_at! + SECRET_TTL);
  t.equal((await grant(renewed.client_secret!)).statusCode, 200, 'the new secret works');
  t.equal((await grant(info.client_secret!)).statusCode, 401, 'the old one still does not');
  t.notOk(
    'client_secret' in (await manage(app, 'GET', info.client_id, info.registration_access_token)).json(),
    'a second read does not renew it again',
  );
});
