import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { obtainCode, tokenRequest } from '../helpers/flow.js';

t.test('a user signs in and the client exchanges the code for tokens and claims', async (t) => {
  const { app } = await buildTestApp(t);
  const { code, verifier, redirectUri } = await obtainCode(app);
  const res = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier });
  t.equal(res.statusCode, 200, res.body);
  const body = res.json();
  t.ok(body.id_token);
  const info = await app.inject({ method: 'GET', url: '/sso/userinfo', headers: { authorization: `Bearer ${body.access_token}` } });
  t.equal(info.statusCode, 200, info.body);
  t.equal(info.json().email, 'alice@example.com');
});
