// After a sign-in, the interaction is completed and its code issued in one statement, only when the user has already
// granted the client every requested scope (src/storage/authorization-codes.ts, completeConsentedInteraction).
// RFC 6749 4.1.2: a code is issued once per authorization; OIDC Core 3.1.2.4: consent is obtained before it is.
import t from 'tap';
import { randomToken, sha256 } from '../../src/domain/secrets.js';
import { completeConsentedInteraction, findCode } from '../../src/storage/authorization-codes.js';
import { grantScopes } from '../../src/storage/consents.js';
import { insertSession } from '../../src/storage/sessions.js';
import { CONFIDENTIAL } from '../helpers/app.js';
import { seededTestDatabase } from '../helpers/seeded-database.js';

const { db, aliceId: userId } = await seededTestDatabase(t);
const now = new Date();
const sid = randomToken(16);
await insertSession(db, {
  idHash: sha256(randomToken()),
  sid,
  userId,
  authTime: now,
  createdAt: now,
  expiresAt: new Date(now.getTime() + 3_600_000),
  deviceId: null,
  amr: ['pwd'],
  acr: null,
});

async function newInteraction(): Promise<string> {
  const id = randomToken(16);
  await db
    .insertInto('interactions')
    .values({
      id,
      binding_hash: sha256(randomToken()),
      client_id: CONFIDENTIAL.client_id,
      request: JSON.stringify({ v: 1 }),
      created_at: now,
      expires_at: new Date(now.getTime() + 600_000),
    })
    .execute();
  return id;
}

function code(scope: string) {
  return {
    codeHash: sha256(randomToken()),
    clientId: CONFIDENTIAL.client_id,
    redirectUri: CONFIDENTIAL.redirect_uris[0]!,
    redirectUriInRequest: true,
    scope,
    nonce: 'n-0',
    codeChallenge: 'c'.repeat(43),
    issuedAt: now,
    expiresAt: new Date(now.getTime() + 60_000),
    resources: [],
    claims: null,
    dpopJkt: null,
    userId,
    authTime: now,
    sid,
    amr: ['pwd'],
    acr: 'urn:example:acr',
  };
}

const completedAt = async (id: string) =>
  (await db.selectFrom('interactions').select('completed_at').where('id', '=', id).executeTakeFirstOrThrow()).completed_at;
const sessionClients = async () =>
  (await db.selectFrom('session_clients').select('client_id').where('sid', '=', sid).execute()).map((r) => r.client_id);

t.test('without consent nothing is written: no code, the interaction still open', async (t) => {
  const id = await newInteraction();
  const issued = code('openid email');
  t.same(await completeConsentedInteraction(db, id, issued, ['openid', 'email']), { consented: false, completed: false });
  t.equal(await findCode(db, issued.codeHash), undefined, 'no code');
  t.equal(await completedAt(id), null, 'the interaction can still be answered on the consent page');
  t.same(await sessionClients(), [], 'the session has not signed in to the client');
});

t.test('consent that covers only some of the scopes is no consent', async (t) => {
  await grantScopes(db, userId, CONFIDENTIAL.client_id, ['openid'], now);
  const id = await newInteraction();
  const issued = code('openid email');
  t.same(await completeConsentedInteraction(db, id, issued, ['openid', 'email']), { consented: false, completed: false });
  t.equal(await findCode(db, issued.codeHash), undefined);
  t.equal(await completedAt(id), null);
});

t.test('with consent: the interaction completed, the code stored as issued, the session recorded, once', async (t) => {
  await grantScopes(db, userId, CONFIDENTIAL.client_id, ['openid', 'email', 'profile'], now);
  const id = await newInteraction();
  const issued = code('openid email');
  t.same(await completeConsentedInteraction(db, id, issued, ['openid', 'email']), { consented: true, completed: true });
  const row = await findCode(db, issued.codeHash);
  t.ok(row, 'the code is stored');
  t.match(row, {
    client_id: CONFIDENTIAL.client_id,
    user_id: userId,
    redirect_uri: issued.redirectUri,
    redirect_uri_in_request: true,
    scope: 'openid email',
    nonce: 'n-0',
    code_challenge: issued.codeChallenge,
    sid,
    amr: ['pwd'],
    acr: 'urn:example:acr',
    resources: [],
    claims: null,
    consumed_at: null,
  });
  t.equal(row!.expires_at.getTime(), issued.expiresAt.getTime());
  t.equal((await completedAt(id))?.getTime(), now.getTime(), 'completed at the moment the code was issued');
  t.same(await sessionClients(), [CONFIDENTIAL.client_id], 'for back-channel logout');

  // The same interaction answered again (a second tab, a replayed form): nothing more is issued.
  const again = code('openid email');
  t.same(await completeConsentedInteraction(db, id, again, ['openid', 'email']), { consented: true, completed: false });
  t.equal(await findCode(db, again.codeHash), undefined, 'no second code');
});

t.test('a request with no scope needs no consent (as hasConsent decides)', async (t) => {
  await db.deleteFrom('consents').execute();
  const id = await newInteraction();
  const issued = code('');
  t.same(await completeConsentedInteraction(db, id, issued, []), { consented: true, completed: true });
  t.ok(await findCode(db, issued.codeHash));
});
