// Admin changes that compose (src/domain/admin/admin.ts inAdminTransaction, asOneChange), on a real database: two
// domain calls made as one change commit together or leave nothing, not even an audit record or a webhook event.
import pino from 'pino';
import t from 'tap';
import { PasswordPolicy } from '../../src/domain/accounts/password-policy.js';
import { type PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { asOneChange, type AdminContext } from '../../src/domain/admin/admin.js';
import { AdminError } from '../../src/domain/admin-error.js';
import { createUser, setRole, showUser } from '../../src/domain/admin/user-admin.js';
import { createGroup } from '../../src/domain/groups/group-admin.js';
import { listAuditRecords } from '../../src/storage/audit-records.js';
import { findUserByUsername } from '../../src/storage/users.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';

const database = await createTestDatabase();
t.teardown(() => database.drop());
const db = database.handle.db;
const config = testConfig();
const passwords = {
  hash: async (plain: string) => `plain:${plain}`,
  verify: async (hash: string, plain: string) => hash === `plain:${plain}`,
} as unknown as PasswordHasher;
const ctx: AdminContext = {
  config,
  db,
  clock: () => new Date(),
  log: pino({ level: 'silent' }),
  passwords,
  passwordPolicy: new PasswordPolicy(config.passwordPolicy),
  actor: { kind: 'system' },
};
const PASSWORD = 'correct horse battery staple';
const recordsFor = async (event: string) => listAuditRecords(db, { event }, 100);

t.test('two changes as one: the second refused, the first leaves no user, no audit record', async (t) => {
  await createGroup(ctx, { name: 'Taken' });
  const err = await asOneChange(ctx, async (tctx) => {
    const user = await createUser(tctx, { username: 'half-made', password: PASSWORD });
    t.ok(await findUserByUsername(tctx.db, 'half-made'), 'the first change is seen inside the transaction');
    await createGroup(tctx, { name: 'taken' });
    return user;
  }).catch((e: unknown) => e);
  t.ok(err instanceof AdminError, 'the refusal is the second change’s own, not a nested-transaction failure');
  t.equal((err as AdminError).kind, 'conflict');
  t.equal(await findUserByUsername(db, 'half-made'), undefined, 'the user created first was rolled back');
  const created = await recordsFor('admin.user.created');
  t.notOk(
    created.some((r) => (r.changes as { username?: string }).username === 'half-made'),
    'no audit record of the change rolled back',
  );
});

t.test('two changes as one that both succeed commit together, each with its own audit record', async (t) => {
  await asOneChange(ctx, async (tctx) => {
    await createUser(tctx, { username: 'whole', password: PASSWORD });
    await setRole(tctx, 'whole', 'auditor');
  });
  const user = await showUser(ctx, 'whole');
  t.equal(user.role, 'auditor');
  t.equal((await listAuditRecords(db, { targetType: 'user', targetId: user.id }, 10)).length, 2, 'created and role_set');
});
