// A client secret the server generated is stored as a keyed digest and checked without argon2; a seeded one is still
// argon2id (issue 16, finding 2).
import t from 'tap';
import { findClient } from '../../../src/storage/clients.js';
import { KEYS_SECRET } from '../../helpers/account.js';
import { buildTestApp, CONFIDENTIAL } from '../../helpers/app.js';
import { basicAuth, tokenRequest } from '../../helpers/flow.js';
import { register, REGISTRATION_ENV } from '../../helpers/registration.js';

const MACHINE_METADATA = { grant_types: ['client_credentials'], scope: 'profile' };
const grant = (app: Parameters<typeof tokenRequest>[0], clientId: string, secret: string) =>
  tokenRequest(app, { grant_type: 'client_credentials' }, basicAuth(clientId, secret));

t.test('a registered client: its stored secret is an HMAC digest, not argon2, and verifies (RFC 7591 3.2.1)', async (t) => {
  const { app, db } = await buildTestApp(t, { env: { ...REGISTRATION_ENV, ...KEYS_SECRET } });
  const info = await register(app, MACHINE_METADATA);
  const row = await findClient(db, info.client_id);
  t.match(row!.client_secret_hash, /^hmac-sha256\$/);
  t.notMatch(row!.client_secret_hash, /argon2/);
  const res = await grant(app, info.client_id, info.client_secret!);
  t.equal(res.statusCode, 200, res.body);

  // RFC 6749 2.3.1 / 5.2: a wrong secret is invalid_client (401).
  // Its last character changed (a secret that already ends in "A" gets "B"), so it is never the right one.
  const secret = info.client_secret!;
  const wrong = await grant(app, info.client_id, `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`);
  t.equal(wrong.statusCode, 401, wrong.body);
  t.equal(wrong.json().error, 'invalid_client');
});

t.test('a seeded client keeps its argon2id hash, which still verifies', async (t) => {
  const { app, db } = await buildTestApp(t, { env: KEYS_SECRET });
  t.match((await findClient(db, CONFIDENTIAL.client_id))!.client_secret_hash, /^\$argon2id\$/);
  // This client may not use client_credentials: 400 unauthorized_client, after it authenticated.
  const right = await grant(app, CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret);
  t.equal(right.json().error, 'unauthorized_client', right.body);
  const wrong = await grant(app, CONFIDENTIAL.client_id, 'a-wrong-secret');
  t.equal(wrong.statusCode, 401);
  t.equal(wrong.json().error, 'invalid_client');
});

// RFC 6749 10.10: guessing a generated secret is counted like guessing an argon2 one.
t.test('wrong generated secrets are counted: five failures, then 429 before any check', async (t) => {
  const { app } = await buildTestApp(t, { env: { ...REGISTRATION_ENV, SIGN_IN_IP_FREE_ATTEMPTS: '5' } });
  const info = await register(app, MACHINE_METADATA);
  const statuses: number[] = [];
  for (let i = 0; i < 7; i += 1) statuses.push((await grant(app, info.client_id, 'a-wrong-secret')).statusCode);
  t.same(statuses, [401, 401, 401, 401, 401, 429, 429]);
});
