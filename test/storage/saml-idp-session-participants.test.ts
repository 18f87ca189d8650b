// The SAML SPs a session signed in to (issue 39): one row per (session, SP) holding the newest NameID and
// SessionIndex, read in sign-in order, and gone with the session when the purge takes it, or with the SP.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { spColumns } from '../../src/domain/saml/idp/service-providers.js';
import { purgeExpired } from '../../src/storage/purge.js';
import { upsertSamlServiceProviderRow } from '../../src/storage/saml-service-providers.js';
import { listSamlSessionParticipants, recordSamlSessionParticipant } from '../../src/storage/saml-session-participants.js';
import { insertSession } from '../../src/storage/sessions.js';
import { createTestDatabase } from '../helpers/database.js';
import { spMetadata } from '../helpers/saml-idp/sp-metadata.js';

const shared = await createTestDatabase();
t.teardown(() => shared.drop());
const db = shared.handle.db;
const HOUR = 3600;
const RETENTION = {
  accessTokenTtlSeconds: HOUR,
  signInAttemptRetentionSeconds: HOUR,
  oneTimeCodeTtlSeconds: 300,
  passwordResetTtlSeconds: 1800,
  signupTtlSeconds: 3600,
  securityEventRetentionSeconds: 24 * HOUR,
};
const A = 'https://a.example.test/saml';
const B = 'https://b.example.test/saml';

async function session(expiresAt: Date): Promise<string> {
  const userId = randomUUID();
  const now = new Date();
  await db
    .insertInto('users')
    .values({ id: userId, username: `u-${userId}`, password_hash: 'x', created_at: now, updated_at: now } as never)
    .execute();
  const sid = randomUUID();
  await insertSession(db, {
    idHash: randomUUID(),
    sid,
    userId,
    authTime: now,
    createdAt: now,
    expiresAt,
    deviceId: null,
    amr: ['pwd'],
    acr: null,
  });
  return sid;
}

for (const entityId of [A, B]) {
  await upsertSamlServiceProviderRow(db, spColumns({ metadata_xml: await spMetadata({ entityId }) }), new Date());
}

t.test('a later sign-in at the same SP replaces its NameID; the SPs come back in sign-in order', async (t) => {
  const sid = await session(new Date(Date.now() + HOUR * 1000));
  const first = new Date('2026-12-07T12:00:00Z');
  await recordSamlSessionParticipant(db, sid, { entityId: B, nameId: 'n1', nameIdFormat: 'transient', sessionIndex: sid }, first);
  await recordSamlSessionParticipant(
    db,
    sid,
    { entityId: A, nameId: 'a', nameIdFormat: 'email', sessionIndex: sid },
    new Date(first.getTime() + 1000),
  );
  await recordSamlSessionParticipant(db, sid, { entityId: B, nameId: 'n2', nameIdFormat: 'transient', sessionIndex: sid }, first);
  t.same(
    (await listSamlSessionParticipants(db, sid)).map((p) => [p.entityId, p.nameId]),
    [
      [B, 'n2'],
      [A, 'a'],
    ],
  );
});

t.test('the rows go with the session when the purge takes it', async (t) => {
  const sid = await session(new Date(Date.now() - 2 * HOUR * 1000));
  await recordSamlSessionParticipant(db, sid, { entityId: A, nameId: 'a', nameIdFormat: 'email', sessionIndex: sid }, new Date());
  t.equal((await listSamlSessionParticipants(db, sid)).length, 1);
  await purgeExpired(db, { now: new Date(), ...RETENTION });
  t.same(await listSamlSessionParticipants(db, sid), [], 'purged with the session');
});

t.test('the rows go with the SP when it is removed', async (t) => {
  const sid = await session(new Date(Date.now() + HOUR * 1000));
  await recordSamlSessionParticipant(db, sid, { entityId: B, nameId: 'b', nameIdFormat: 'email', sessionIndex: sid }, new Date());
  await db.deleteFrom('saml_service_providers').where('entity_id', '=', B).execute();
  t.same(await listSamlSessionParticipants(db, sid), []);
});
