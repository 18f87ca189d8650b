// Invitations to an organization (issue 40) on a real database: the link's token is kept only as a digest and
// mailed through the outbox to the address alone; it works once (two accepts racing: one wins), until it expires (an
// injected clock), not after a revoke or a resend, and only for the invited address, verified.
import pino from 'pino';
import t, { type Test } from 'tap';
import { PasswordPolicy } from '../../src/domain/accounts/password-policy.js';
import type { AdminContext } from '../../src/domain/admin/admin.js';
import { AdminError } from '../../src/domain/admin-error.js';
import { applySeed, parseSeed } from '../../src/domain/admin/seed.js';
import { createOrganization, createOrganizationRole } from '../../src/domain/organizations/organization-admin.js';
import {
  acceptInvitation,
  createInvitation,
  listInvitations,
  openInvitation,
  resendInvitation,
  revokeInvitation,
  sameAddress,
} from '../../src/domain/organizations/invitations.js';
import { sha256 } from '../../src/domain/secrets.js';
import { findMembership } from '../../src/storage/organizations.js';
import { findUserByUsername } from '../../src/storage/users.js';
import type { UserRow } from '../../src/storage/schema.js';
import { testConfig } from '../helpers/app.js';
import { PLAIN_PASSWORDS } from '../helpers/admin-context.js';
import { createTestDatabase } from '../helpers/database.js';

const database = await createTestDatabase();
t.teardown(() => database.drop());
const db = database.handle.db;
const config = testConfig();
const passwords = PLAIN_PASSWORDS;
let now = new Date('2026-12-08T10:00:00Z');
const logged: string[] = [];
const log = pino({ level: 'info' }, { write: (line: string) => void logged.push(line) });
const ctx: AdminContext = {
  config,
  db,
  clock: () => now,
  log,
  passwords,
  passwordPolicy: new PasswordPolicy(config.passwordPolicy),
  actor: { kind: 'cli', osUser: 'operator' },
};
await applySeed(
  db,
  passwords,
  parseSeed({
    users: [
      { username: 'carol', password: 'carol-password-1', email: 'Carol@Example.COM', email_verified: true },
      { username: 'mallory', password: 'mallory-password', email: 'mallory@example.com', email_verified: true },
      { username: 'unverified', password: 'unverified-pass', email: 'dan@example.com', email_verified: false },
    ],
  }),
);
const user = async (username: string): Promise<UserRow> => (await findUserByUsername(db, username))!;
const carol = await user('carol');
const acme = await createOrganization(ctx, { slug: 'acme', display_name: 'Acme & Co' });
const other = await createOrganization(ctx, { slug: 'other', display_name: 'Other' });
await createOrganizationRole(ctx, 'acme', 'billing');

/** The token of the last invitation mail queued for `address`, read from its outbox row's link. */
async function mailedToken(address: string): Promise<string> {
  const row = await db
    .selectFrom('outbox')
    .selectAll()
    .where('address', '=', address)
    .where('kind', '=', 'organization-invitation')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  t.equal(row.user_id, null, 'the mail names an address, not a user');
  const url = String((row.payload as Record<string, unknown>).url);
  t.match(url, `${config.issuer}/invitations/`);
  return url.slice(url.lastIndexOf('/') + 1);
}

const refused = async (t: Test, p: Promise<unknown>, kind: string, what: string) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof AdminError, `${what}: refused`);
  t.equal((err as AdminError).kind, kind, `${what}: ${kind}`);
};

t.test('an invitation is recorded with its roles and a digest of its token, and its link is mailed to the address', async (t) => {
  const invitation = await createInvitation(ctx, 'acme', { email: 'carol@example.com', roles: ['billing'] });
  t.same(invitation.roles, ['member', 'billing']);
  t.equal(invitation.state, 'pending');
  t.equal(invitation.invitedBy, 'cli:operator', 'who invited is recorded');
  t.equal(invitation.expiresAt.getTime() - now.getTime(), 7 * 86_400_000, 'seven days unless said otherwise');
  const token = await mailedToken('carol@example.com');
  const row = await db.selectFrom('organization_invitations').selectAll().where('id', '=', invitation.id).executeTakeFirstOrThrow();
  t.equal(row.token_hash, sha256(token), 'only the digest is stored');
  t.notMatch(JSON.stringify(row), token);
  t.notMatch(logged.join(''), token, 'the link is in no log line');
  const open = await openInvitation(ctx, token);
  t.equal(open?.organization.displayName, 'Acme & Co');
  t.same(
    (await listInvitations(ctx, 'acme')).map((i) => i.id),
    [invitation.id],
  );
});

t.test('a role the organization does not define, a bad address or expiry, and another organization are refused', async (t) => {
  await refused(t, createInvitation(ctx, 'acme', { email: 'x@example.com', roles: ['owner'] }), 'invalid', 'an unknown role');
  await refused(t, createInvitation(ctx, 'acme', { email: 'not an address' }), 'invalid', 'not an address');
  await refused(t, createInvitation(ctx, 'acme', { email: 'x@example.com', expiresInDays: 31 }), 'invalid', '31 days');
  const scoped = { ...ctx, organizationScope: other.id };
  await refused(t, createInvitation(scoped, 'acme', { email: 'x@example.com' }), 'not_found', "another organization's admin creating");
  await refused(t, listInvitations(scoped, 'acme'), 'not_found', "another organization's admin listing");
  const mine = await createInvitation(ctx, 'acme', { email: 'y@example.com' });
  await refused(t, revokeInvitation(scoped, 'acme', mine.id), 'not_found', "another organization's admin revoking");
  await refused(t, revokeInvitation(scoped, 'other', mine.id), 'not_found', 'naming the invitation under their own organization');
  t.equal((await listInvitations(ctx, 'acme')).find((i) => i.id === mine.id)?.state, 'pending', 'nothing changed');
});

t.test('only the invited address, verified, may accept; the address is compared without regard to case', async (t) => {
  t.ok(sameAddress('Carol@Example.COM', 'carol@example.com'));
  await createInvitation(ctx, 'acme', { email: 'dan@example.com' });
  const token = await mailedToken('dan@example.com');
  t.same(await acceptInvitation(ctx, token, await user('mallory')), { kind: 'wrong-address' }, 'another address');
  t.same(await acceptInvitation(ctx, token, await user('unverified')), { kind: 'wrong-address' }, 'the address, not verified');
  t.ok(await openInvitation(ctx, token), 'still open');
});

t.test('accepting makes a member with the roles, source invitation; the link works once, even when two race', async (t) => {
  const created = await createInvitation(ctx, 'acme', { email: 'CAROL@example.com', roles: ['billing'] });
  const token = await mailedToken('CAROL@example.com');
  const results = await Promise.all([acceptInvitation(ctx, token, carol), acceptInvitation(ctx, token, carol)]);
  t.same(results.map((r) => r.kind).sort(), ['accepted', 'unusable'], 'one wins');
  const member = await findMembership(db, acme.id, carol.id);
  t.same(member?.roles, ['member', 'billing']);
  t.equal(member?.source, 'invitation');
  t.same(await acceptInvitation(ctx, token, carol), { kind: 'unusable' }, 'used');
  t.equal((await listInvitations(ctx, 'acme')).find((i) => i.id === created.id)?.state, 'accepted');
  await refused(t, revokeInvitation(ctx, 'acme', created.id), 'conflict', 'revoking an accepted one');
});

t.test('an invitation expires at its time (the injected clock)', async (t) => {
  const created = await createInvitation(ctx, 'acme', { email: 'late@example.com', expiresInDays: 1 });
  const token = await mailedToken('late@example.com');
  const saved = now;
  now = new Date(created.expiresAt.getTime());
  t.teardown(() => void (now = saved));
  t.equal(await openInvitation(ctx, token), undefined, 'closed at its expiry');
  t.equal((await listInvitations(ctx, 'acme')).find((i) => i.id === created.id)?.state, 'expired');
  const resent = await resendInvitation(ctx, 'acme', created.id);
  t.equal(resent.state, 'pending', 'an expired invitation can be resent');
});

t.test('revoking ends the link at once; resending gives a new link and kills the old one', async (t) => {
  const a = await createInvitation(ctx, 'acme', { email: 'rev@example.com' });
  const aToken = await mailedToken('rev@example.com');
  t.equal((await revokeInvitation(ctx, 'acme', a.id)).state, 'revoked');
  t.equal(await openInvitation(ctx, aToken), undefined, 'the revoked link finds nothing');
  await refused(t, resendInvitation(ctx, 'acme', a.id), 'conflict', 'resending a revoked one');

  const b = await createInvitation(ctx, 'acme', { email: 'carol@example.com', roles: [] });
  const oldToken = await mailedToken('carol@example.com');
  now = new Date(now.getTime() + 1000);
  const resent = await resendInvitation(ctx, 'acme', b.id, 2);
  t.equal(resent.expiresAt.getTime() - now.getTime(), 2 * 86_400_000, 'a new expiry');
  const newToken = await mailedToken('carol@example.com');
  t.not(newToken, oldToken);
  t.equal(await openInvitation(ctx, oldToken), undefined, 'the old link is dead');
  t.same(await acceptInvitation(ctx, oldToken, carol), { kind: 'unusable' });
  const accepted = await acceptInvitation(ctx, newToken, carol);
  t.equal(accepted.kind, 'accepted', 'the new one works');
  t.same(await findMembership(db, acme.id, carol.id).then((m) => m?.roles), ['member', 'billing'], 'a member keeps their roles');
  t.notMatch(logged.join(''), newToken, 'no link in the log');
});

t.test('an unknown or malformed token finds nothing', async (t) => {
  t.equal(await openInvitation(ctx, 'x'.repeat(43)), undefined);
  t.equal(await openInvitation(ctx, "'; drop table users; --"), undefined);
  t.equal(await openInvitation(ctx, undefined), undefined);
});
