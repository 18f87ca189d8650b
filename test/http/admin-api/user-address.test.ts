// An address an admin sets (the management API, the command line: both call updateUserProfile) is not its owner's
// doing (issue 38): it is unverified until its owner verifies it, no reset link is mailed to it, and the change is
// audited and sent as user.email_changed.
import pino from 'pino';
import t from 'tap';
import { subscribeToEvents } from '../../helpers/webhook-subscription.js';
import { adminContext } from '../../../src/cli/command.js';
import { AdminError } from '../../../src/domain/admin-error.js';
import { createUser, resetLink, updateUserProfile } from '../../../src/domain/admin/user-admin.js';
import { adminApiApp } from '../../helpers/admin-api.js';
import { ALICE } from '../../helpers/app.js';

const api = await adminApiApp(t, { notifier: null });
const ctx = adminContext(api.config, pino({ level: 'silent' }), api.db);

const emailOf = async (username: string) =>
  api.db.selectFrom('users').select(['id', 'email', 'email_verified']).where('username', '=', username).executeTakeFirstOrThrow();

t.test('PATCH /users/{user} with a new address leaves it unverified; email_verified true is refused (400)', async (t) => {
  await subscribeToEvents(api.db, ['user.email_changed']);
  t.equal((await emailOf('alice')).email_verified, true, 'alice’s address is verified to begin with');
  const moved = await api.call(t, 'PATCH', '/users/alice', { body: { email: 'alice@moved.example' }, headers: { 'if-match': '*' } });
  t.equal(moved.statusCode, 200);
  t.match(moved.json(), { email: 'alice@moved.example', email_verified: false });
  const claimed = await api.call(t, 'PATCH', '/users/alice', { body: { email_verified: true }, headers: { 'if-match': '*' } });
  t.equal(claimed.statusCode, 400, 'an admin does not verify an address for its owner');
  const both = await api.call(t, 'PATCH', '/users/alice', {
    body: { email: 'alice@elsewhere.example', email_verified: true },
    headers: { 'if-match': '*' },
  });
  t.equal(both.statusCode, 400, 'nor together with a new address');
  t.match(await emailOf('alice'), { email: 'alice@moved.example', email_verified: false }, 'nothing of the refused patches was written');
  const audit = await api.db
    .selectFrom('admin_audit_records')
    .select(['changes'])
    .where('event', '=', 'admin.user.updated')
    .where('target_id', '=', (await emailOf('alice')).id)
    .execute();
  t.match(audit, [{ changes: { email: 'alice@moved.example', email_verified: false } }], 'the change is audited');
  const events = await api.db.selectFrom('webhook_deliveries').select(['event_type', 'payload']).execute();
  t.match(events, [
    {
      event_type: 'user.email_changed',
      payload: { email: 'alice@moved.example', previous_email: ALICE.email, email_verified: false, via: 'admin' },
    },
  ]);
  const mailed = await api.call(t, 'POST', '/users/alice/reset-link');
  t.equal(mailed.statusCode, 400, 'no reset link is mailed to the unverified address');
  t.equal((await api.db.selectFrom('outbox').select('id').where('kind', '=', 'password-reset').execute()).length, 0, 'and none was queued');
});

t.test('the command line’s domain functions keep the same rule; a verified address changed only in case stays verified', async (t) => {
  await t.rejects(updateUserProfile(ctx, 'bob', { email_verified: true }), AdminError, 'bob’s address is not verified: not by an admin');
  await t.rejects(resetLink(ctx, 'bob', true), AdminError, 'no link is mailed to an unverified address');
  const printed = await resetLink(ctx, 'bob', false);
  t.ok(printed.url, 'a link the admin hands over is still given');
  // The seed file and createUser may say an address is verified: the operator creating an account, not changing one.
  await createUser(ctx, { username: 'carol', password: 'carol-password-123', email: 'carol@example.com', email_verified: true });
  const cased = await updateUserProfile(ctx, 'carol', { email: 'Carol@Example.com' });
  t.equal(cased.emailVerified, true, 'the same mailbox in other letters stays verified');
});
