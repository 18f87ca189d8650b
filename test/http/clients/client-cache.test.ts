// Clients remembered in memory (domain/clients/client-cache.ts) never outlive a change to the registered client: the
// statement that issues or redeems checks the client's revision, and a stale copy is replaced before anything
// is decided with it.
import t from 'tap';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { applySeed } from '../../../src/domain/admin/seed.js';
import { findClientRevision } from '../../../src/storage/clients.js';
import { ALICE, buildTestApp, CONFIDENTIAL, PUBLIC } from '../../helpers/app.js';
import { basicAuth, obtainCode, tokenRequest, authorizePath, type Browser } from '../../helpers/flow.js';

const { app, db, config } = await buildTestApp(t);
const hasher = new PasswordHasher(config.argon2);
const reseed = (client: Record<string, unknown>) => applySeed(db, hasher, { clients: [client as never], users: [] });

t.teardown(() => reseed(CONFIDENTIAL));

t.test('every update of a client raises its revision, whoever writes it', async (t) => {
  const before = await findClientRevision(db, CONFIDENTIAL.client_id);
  await db.updateTable('clients').set({ client_name: 'Renamed by hand' }).where('client_id', '=', CONFIDENTIAL.client_id).execute();
  t.equal(await findClientRevision(db, CONFIDENTIAL.client_id), before! + 1);
  await reseed(CONFIDENTIAL);
  t.equal(await findClientRevision(db, CONFIDENTIAL.client_id), before! + 2);
});

t.test('a redirect URI removed from a remembered client is refused at once, also from a live session', async (t) => {
  const first = await obtainCode(app, {}, { user: ALICE });
  const browser: Browser = first.browser;
  const second = CONFIDENTIAL.redirect_uris[1]!;
  const viaSecond = () =>
    browser.request(
      app,
      'GET',
      authorizePath({
        response_type: 'code',
        client_id: CONFIDENTIAL.client_id,
        redirect_uri: second,
        scope: 'openid profile email',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        state: 's',
      }),
    );
  const warm = await viaSecond();
  t.equal(warm.statusCode, 303, 'the session answers with a code, and the client is now in memory');
  t.match(String(warm.headers.location), /^https:\/\/app\.example\/cb2\?keep=1&code=/);

  await reseed({ ...CONFIDENTIAL, redirect_uris: [CONFIDENTIAL.redirect_uris[0]] });
  const after = await viaSecond();
  t.equal(after.statusCode, 400, 'RFC 9700 4.1.3: no redirect to a URI that is no longer registered');
  t.notOk(after.headers.location);
  t.match(after.body, /redirect_uri is not registered/);
  await reseed(CONFIDENTIAL);
});

t.test('a rotated secret: the old one stops working at once, and the code it presented is not spent', async (t) => {
  const warm = await obtainCode(app);
  const ok = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code: warm.code,
    redirect_uri: warm.redirectUri,
    code_verifier: warm.verifier,
  });
  t.equal(ok.statusCode, 200, 'the client and its secret are now remembered');

  const { code, verifier, redirectUri } = await obtainCode(app);
  const rotated = 'a-brand-new-secret-0123456789';
  await reseed({ ...CONFIDENTIAL, client_secret: rotated });
  const old = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier });
  t.equal(old.statusCode, 401);
  t.equal(old.json().error, 'invalid_client');
  const fresh = await tokenRequest(
    app,
    { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier },
    basicAuth(CONFIDENTIAL.client_id, rotated),
  );
  t.equal(fresh.statusCode, 200, 'the code survived the refused attempt and redeems with the new secret');
  await reseed(CONFIDENTIAL);
});

t.test('a change that keeps the credentials: the grant is redone with the client as registered now', async (t) => {
  const warm = await obtainCode(app);
  t.equal(
    (
      await tokenRequest(app, {
        grant_type: 'authorization_code',
        code: warm.code,
        redirect_uri: warm.redirectUri,
        code_verifier: warm.verifier,
      })
    ).statusCode,
    200,
  );
  const { code, verifier, redirectUri } = await obtainCode(app);
  await reseed({ ...CONFIDENTIAL, id_token_signed_response_alg: 'ES256' });
  const res = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier });
  t.equal(res.statusCode, 200);
  const header = JSON.parse(Buffer.from((res.json() as { id_token: string }).id_token.split('.')[0]!, 'base64url').toString());
  t.equal(header.alg, 'ES256', 'signed as the client is registered now, not as remembered');
  await reseed(CONFIDENTIAL);
});

t.test('a client that may no longer use a grant is refused at once', async (t) => {
  const warm = await obtainCode(app);
  t.equal(
    (
      await tokenRequest(app, {
        grant_type: 'authorization_code',
        code: warm.code,
        redirect_uri: warm.redirectUri,
        code_verifier: warm.verifier,
      })
    ).statusCode,
    200,
  );
  const { code, verifier, redirectUri } = await obtainCode(app);
  await reseed({ ...CONFIDENTIAL, grant_types: ['client_credentials'], scope: 'api' });
  const res = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier });
  t.equal(res.statusCode, 400);
  t.equal(res.json().error, 'unauthorized_client');
  await reseed(CONFIDENTIAL);
});

t.test('a deleted client is unknown at once', async (t) => {
  const spa = {
    response_type: 'code',
    client_id: PUBLIC.client_id,
    redirect_uri: PUBLIC.redirect_uris[0],
    scope: 'openid',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  };
  const before = await app.inject({ method: 'GET', url: authorizePath(spa) });
  t.equal(before.statusCode, 303, 'remembered after this request');
  await db.deleteFrom('clients').where('client_id', '=', PUBLIC.client_id).execute();
  const after = await app.inject({ method: 'GET', url: authorizePath(spa) });
  t.equal(after.statusCode, 400);
  t.notOk(after.headers.location);
  t.match(after.body, /not registered/);
});
