// Whom the outbox sends a message to (src/domain/notifications/notifier.ts recipientOf): a one-time code or a reset
// link only to a verified address (issue 38), the one it was queued with when it has one; other messages to the
// user's address as it is.
import t from 'tap';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { applySeed } from '../../src/domain/admin/seed.js';
import { recipientOf } from '../../src/domain/notifications/notifier.js';
import { findUserByUsername } from '../../src/storage/users.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';

const database = await createTestDatabase();
t.teardown(() => database.drop());
const db = database.handle.db;
const config = testConfig();

await applySeed(db, new PasswordHasher(config.argon2), {
  clients: [],
  users: [
    { username: 'set-by-admin', password: 'a-password-123', email: 'set@example.com' },
    { username: 'verified', password: 'a-password-123', email: 'mine@example.com', email_verified: true },
  ],
});
const idOf = async (username: string) => (await findUserByUsername(db, username))!.id;

t.test('a code or a reset link is never sent to an unverified address; a notice is', async (t) => {
  const userId = await idOf('set-by-admin');
  for (const kind of ['one-time-code', 'password-reset'])
    t.equal((await recipientOf({ db }, { userId, address: null, kind }))?.address, null, `${kind}: no address to send it to`);
  t.equal((await recipientOf({ db }, { userId, address: null, kind: 'new-device' }))?.address, 'set@example.com');
});

t.test('a code or a reset link goes to the verified address, or to the address it was queued with', async (t) => {
  const userId = await idOf('verified');
  t.equal((await recipientOf({ db }, { userId, address: null, kind: 'one-time-code' }))?.address, 'mine@example.com');
  // Queued while the address was verified, then changed by someone else: the message keeps its address.
  await db.updateTable('users').set({ email: 'other@example.com', email_verified: false }).where('id', '=', userId).execute();
  t.equal((await recipientOf({ db }, { userId, address: 'mine@example.com', kind: 'password-reset' }))?.address, 'mine@example.com');
  t.equal((await recipientOf({ db }, { userId, address: null, kind: 'password-reset' }))?.address, null);
});
