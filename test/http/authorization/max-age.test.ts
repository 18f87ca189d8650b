// OIDC Core 3.1.2.1: max_age and login_hint; and a user disabled between sign-in and code redemption.
import t from 'tap';
import { decodeJwt } from 'jose';
import { updateUser } from '../../../src/storage/users.js';
import { findUserByUsername } from '../../../src/storage/users.js';
import { ALICE, BOB, CONFIDENTIAL, buildTestApp } from '../../helpers/app.js';
import { Browser, authorizePath, obtainCode, tokenRequest } from '../../helpers/flow.js';

const base = {
  response_type: 'code',
  client_id: CONFIDENTIAL.client_id,
  redirect_uri: CONFIDENTIAL.redirect_uris[0],
  scope: 'openid profile',
  state: 's1',
};

t.test('max_age and login_hint', async (t) => {
  const { app, advance, db } = await buildTestApp(t);

  t.test('OIDC Core 3.1.2.1: a session older than max_age must sign in again; a fresh one gets a code at once', async (t) => {
    const browser = new Browser();
    await obtainCode(app, {}, { browser });
    advance(120);
    const stale = await browser.request(app, 'GET', authorizePath({ ...base, max_age: '60' }));
    t.equal(stale.statusCode, 303);
    t.match(String(stale.headers.location), /\/sso\/interaction\//, 'sent to the sign-in page, not back with a code');
    const page = await browser.request(app, 'GET', new URL(String(stale.headers.location)).pathname);
    t.match(page.body, /type="password"/, 'the login form is shown although a session exists');

    const fresh = await browser.request(app, 'GET', authorizePath({ ...base, max_age: '3600' }));
    t.equal(fresh.statusCode, 303);
    const location = new URL(String(fresh.headers.location));
    t.equal(location.origin + location.pathname, CONFIDENTIAL.redirect_uris[0]);
    t.ok(location.searchParams.get('code'), 'a recent enough session answers without a page');
  });

  t.test('OIDC Core 3.1.2.1: after signing in again for max_age the code carries the new auth_time', async (t) => {
    const browser = new Browser();
    const first = await obtainCode(app, {}, { browser });
    const firstToken = (
      await tokenRequest(app, {
        grant_type: 'authorization_code',
        code: first.code,
        redirect_uri: first.redirectUri,
        code_verifier: first.verifier,
      })
    ).json();
    advance(300);
    const again = await obtainCode(app, { max_age: '10' }, { browser });
    const res = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code: again.code,
      redirect_uri: again.redirectUri,
      code_verifier: again.verifier,
    });
    t.equal(res.statusCode, 200, res.body);
    const before = decodeJwt(firstToken.id_token).auth_time as number;
    const after = decodeJwt(res.json().id_token).auth_time as number;
    t.ok(after - before >= 300, `auth_time moved forward (${before} -> ${after})`);
  });

  t.test('OIDC Core 3.1.2.6: prompt=none with a session older than max_age is login_required', async (t) => {
    const browser = new Browser();
    await obtainCode(app, {}, { browser });
    advance(120);
    const res = await browser.request(app, 'GET', authorizePath({ ...base, prompt: 'none', max_age: '30' }));
    t.equal(res.statusCode, 303);
    const location = new URL(String(res.headers.location));
    t.equal(location.searchParams.get('error'), 'login_required');
    t.equal(location.searchParams.get('state'), 's1');
  });

  t.test('a max_age that is not a number of seconds is invalid_request', async (t) => {
    for (const bad of ['-1', 'soon', '1.5']) {
      const res = await app.inject({ method: 'GET', url: authorizePath({ ...base, max_age: bad }) });
      t.equal(res.statusCode, 303);
      t.equal(new URL(String(res.headers.location)).searchParams.get('error'), 'invalid_request', `max_age=${bad}`);
    }
  });

  t.test('OIDC Core 3.1.2.1: login_hint prefills the sign-in form, escaped', async (t) => {
    const browser = new Browser();
    const res = await browser.request(app, 'GET', authorizePath({ ...base, login_hint: 'bob"<x>' }));
    const page = await browser.request(app, 'GET', new URL(String(res.headers.location)).pathname);
    t.match(page.body, /name="login" value="bob&quot;&lt;x&gt;"/);
  });

  t.test('RFC 6749 4.1.3: a code whose user was disabled after signing in is refused', async (t) => {
    const { code, verifier, redirectUri } = await obtainCode(app, {}, { user: BOB });
    const bob = await findUserByUsername(db, BOB.username);
    await updateUser(db, bob!.id, { disabled_at: new Date() });
    const res = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier });
    t.equal(res.statusCode, 400);
    t.equal(res.json().error, 'invalid_grant');
    const alice = await obtainCode(app, {}, { user: ALICE });
    const ok = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code: alice.code,
      redirect_uri: alice.redirectUri,
      code_verifier: alice.verifier,
    });
    t.equal(ok.statusCode, 200, 'other users are unaffected');
  });
});
