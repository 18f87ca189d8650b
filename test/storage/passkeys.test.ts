// The passkeys table and the passkey challenges table on a real database: a credential ID belongs to one user, a use is
// recorded only against the counter it was checked with, a challenge is used once, by its own binding, while it lives,
// and asking again replaces it. The rule that keeps a last way to sign in.
import t from 'tap';
import { canDeletePasskey } from '../../src/domain/accounts/passkeys.js';
import { consumePasskeyChallenge, savePasskeyChallenge } from '../../src/storage/passkey-challenges.js';
import { insertPasskey, listPasskeys, recordPasskeyUse } from '../../src/storage/passkeys.js';
import { findUserByUsername } from '../../src/storage/users.js';
import { createTestDatabase } from '../helpers/database.js';
import { FIXTURES, seedDatabase } from '../helpers/app.js';

const database = await createTestDatabase();
t.teardown(() => database.drop());
const db = database.handle.db;
await seedDatabase(db, FIXTURES);
const alice = (await findUserByUsername(db, 'alice'))!;
const bob = (await findUserByUsername(db, 'bob'))!;
const now = new Date('2026-11-25T12:00:00Z');

const passkey = (userId: string, credentialId: string) => ({
  userId,
  credentialId,
  publicKey: new Uint8Array([1, 2, 3]),
  signCount: 0,
  transports: ['internal'],
  name: 'Laptop',
  aaguid: '00000000-0000-0000-0000-000000000000',
  deviceType: 'singleDevice' as const,
  backedUp: false,
  createdAt: now,
});

t.test('WebAuthn L3 §7.1 (a credential ID registered already is refused): one credential ID, one row, whoever asks', async (t) => {
  const row = await insertPasskey(db, passkey(alice.id, 'cred-1'));
  t.ok(row);
  t.same(Buffer.from(row!.public_key), Buffer.from([1, 2, 3]), 'the key comes back as its bytes');
  t.equal(await insertPasskey(db, passkey(bob.id, 'cred-1')), undefined, "bob cannot register alice's credential ID");
  t.same((await listPasskeys(db, bob.id)).length, 0);
});

t.test('WebAuthn L3 §6.1.1: a use is stored only against the counter it was checked with', async (t) => {
  await insertPasskey(db, passkey(alice.id, 'cred-2'));
  t.ok(await recordPasskeyUse(db, { credentialId: 'cred-2', checkedCount: 0, newCount: 4, backedUp: false, now }));
  t.notOk(
    await recordPasskeyUse(db, { credentialId: 'cred-2', checkedCount: 0, newCount: 4, backedUp: false, now }),
    'a second assertion checked against the old counter loses',
  );
  const row = (await listPasskeys(db, alice.id)).find((p) => p.credential_id === 'cred-2')!;
  t.equal(Number(row.sign_count), 4);
  t.same(row.last_used_at, now);
});

t.test('WebAuthn L3 §13.4.3: a challenge is used once, by its binding and purpose, while it lives; asking again replaces it', async (t) => {
  const expiresAt = new Date(now.getTime() + 300_000);
  const save = (challengeHash: string) =>
    savePasskeyChallenge(db, { bindingHash: 'b1', purpose: 'sign-in', challengeHash, userId: null, createdAt: now, expiresAt });
  const consume = (challengeHash: string, over: Partial<Parameters<typeof consumePasskeyChallenge>[1]> = {}) =>
    consumePasskeyChallenge(db, { bindingHash: 'b1', purpose: 'sign-in', challengeHash, userId: null, now, ...over });
  await save('c1');
  t.notOk(await consume('c1', { bindingHash: 'b2' }), "another browser's binding finds nothing");
  t.notOk(await consume('c1', { purpose: 'second-factor' }), 'nor another purpose');
  t.notOk(await consume('c1', { now: expiresAt }), 'nor an expired one');
  t.ok(await consume('c1'), 'the first use');
  t.notOk(await consume('c1'), 'a second use finds nothing');
  await save('c2');
  await save('c3');
  t.notOk(await consume('c2'), 'a replaced challenge is gone');
  t.ok(await consume('c3'));
  await savePasskeyChallenge(db, {
    bindingHash: 'b1',
    purpose: 'registration',
    challengeHash: 'r1',
    userId: alice.id,
    createdAt: now,
    expiresAt,
  });
  t.notOk(await consume('r1', { purpose: 'registration', userId: bob.id }), "a registration challenge is its user's only");
  t.ok(await consume('r1', { purpose: 'registration', userId: alice.id }));
});

t.test('a passkey may go unless it is the last way to sign in', async (t) => {
  t.ok(canDeletePasskey({ hasPassword: true, passkeys: 1 }), 'a password remains');
  t.ok(canDeletePasskey({ hasPassword: false, passkeys: 2 }), 'another passkey remains');
  t.notOk(canDeletePasskey({ hasPassword: false, passkeys: 1 }), 'nothing would remain');
});
