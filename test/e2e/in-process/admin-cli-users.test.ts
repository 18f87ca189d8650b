// `sso-admin users ...` as an operator runs it, on a database of the test's own, in this process (see
// admin-cli-clients.test.ts): several verbs per test, in the order an operator would use them.
import argon2 from 'argon2';
import t from 'tap';
import { sha256 } from '../../../src/domain/secrets.js';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { applySeed } from '../../../src/domain/admin/seed.js';
import type { Db } from '../../../src/storage/database.js';
import { adminStore, events, json, liveState, runAdmin, signedInUser } from '../../helpers/admin-cli.js';
import { testConfig } from '../../helpers/app.js';

const PASSWORD = 'a passphrase of her own';
const NEW_PASSWORD = 'a new passphrase: with spaces';
const storedUser = (db: Db, username: string) => db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();

/** A client with a back-channel logout URI, so that ending a session queues a logout token for it. */
const seedApp = (db: Db) =>
  applySeed(db, new PasswordHasher(testConfig().argon2), {
    clients: [
      {
        client_id: 'app',
        client_secret: 'app-secret-0123456789',
        redirect_uris: ['https://app.example/cb'],
        backchannel_logout_uri: 'https://app.example/logout',
      },
    ],
    users: [],
  });

t.test(
  'users create reads the password from stdin and stores its argon2id hash; list and show; taken and unknown names exit 1',
  async (t) => {
    const store = await adminStore(t);
    const created = await runAdmin(
      [
        'users',
        'create',
        'alice',
        '--email',
        'alice@example.com',
        '--email-verified',
        '--claim',
        'name=Alice Liddell',
        '--claim',
        'phone_number_verified=false',
        '--claim',
        'address={"country":"GB"}',
        '--password-stdin',
        '--json',
      ],
      store.env,
      { input: `${PASSWORD}\n` },
    );
    const alice = json<{ id: string }>(created);
    t.match(alice, { id: /^[0-9a-f-]{36}$/, username: 'alice', email: 'alice@example.com', email_verified: true, disabled: false });
    t.same(events(created), ['admin.user.created']);
    t.match(
      created.logs.find((l) => l.event === 'admin.user.created'),
      { userId: alice.id },
    );
    t.notMatch(created.stdout + created.stderr, PASSWORD, 'the password is printed and logged nowhere');

    const taken = await runAdmin(['users', 'create', 'ALICE', '--password-stdin'], store.env, { input: 'another password' });
    t.equal(taken.code, 1);
    t.equal(taken.message, 'sso-admin users create: username "ALICE" is taken (usernames and emails are unique, in any case)');

    const list = await runAdmin(['users', 'list'], store.env);
    t.equal(list.code, 0, list.stderr);
    t.match(
      list.stdout,
      new RegExp(
        `^id +username +email +status +created\\n${alice.id}  alice +alice@example\\.com +active +\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\n$`,
      ),
    );

    const show = await runAdmin(['users', 'show', alice.id, '--json'], store.env);
    t.match(
      json(show),
      {
        id: alice.id,
        username: 'alice',
        claims: { name: 'Alice Liddell', phone_number_verified: false, address: { country: 'GB' } },
        live_sessions: 0,
        devices: 0,
        authenticator_app: false,
      },
      'found by id as by username',
    );

    const unknown = await runAdmin(['users', 'show', 'bob'], store.env);
    t.equal(unknown.code, 1);
    t.equal(unknown.message, 'sso-admin users show: no user "bob" (give a user id or a username)');

    const row = await store.withDb((db) => storedUser(db, 'alice'));
    t.match(row!.password_hash, /^\$argon2id\$/);
    t.ok(await argon2.verify(row!.password_hash, PASSWORD), 'the final newline of stdin is not part of the password');
  },
);

t.test('users set-password replaces the hash with one of the password read from stdin, and refuses an unknown user', async (t) => {
  const store = await adminStore(t);
  await store.withDb((db) =>
    applySeed(db, new PasswordHasher(testConfig().argon2), { clients: [], users: [{ username: 'alice', password: PASSWORD }] }),
  );

  const set = await runAdmin(['users', 'set-password', 'Alice', '--password-stdin'], store.env, { input: `${NEW_PASSWORD}\r\n` });
  t.equal(set.code, 0, set.stderr);
  t.equal(set.stdout, 'password of "alice" set\n');
  t.same(events(set), ['admin.user.password_set']);
  t.notMatch(set.stdout + set.stderr, NEW_PASSWORD);

  const unknown = await runAdmin(['users', 'set-password', 'bob', '--password-stdin'], store.env, { input: NEW_PASSWORD });
  t.equal(unknown.code, 1);
  t.equal(unknown.message, 'sso-admin users set-password: no user "bob" (give a user id or a username)');

  const row = await store.withDb((db) => storedUser(db, 'alice'));
  t.ok(await argon2.verify(row!.password_hash, NEW_PASSWORD), 'the new password verifies');
  t.notOk(await argon2.verify(row!.password_hash, PASSWORD), 'the old one does not');
});

t.test(
  'users reset-link prints a working link, or queues it for the user with --send; the password policy holds for set-password',
  async (t) => {
    const store = await adminStore(t);
    await store.withDb((db) =>
      applySeed(db, new PasswordHasher(testConfig().argon2), {
        clients: [],
        users: [
          // Verified: --send mails a link only to a verified address (issue 38).
          { username: 'alice', password: PASSWORD, email: 'alice@example.com', email_verified: true },
          { username: 'carol', password: PASSWORD },
        ],
      }),
    );
    const printed = await runAdmin(['users', 'reset-link', 'alice'], store.env);
    t.equal(printed.code, 0, printed.stderr);
    const url = new URL(printed.stdout.trim());
    t.equal(url.pathname, '/sso/account/reset');
    const token = url.searchParams.get('token')!;
    t.same(events(printed), ['admin.user.reset_link']);
    t.notMatch(printed.stderr, token, 'the log line does not hold the link');
    const stored = await store.withDb((db) => db.selectFrom('password_resets').select('token_digest').execute());
    t.same(
      stored.map((r) => r.token_digest),
      [sha256(token)],
      'only its digest is stored',
    );

    const sent = await runAdmin(['users', 'reset-link', 'alice', '--send', '--json'], store.env);
    t.equal(sent.code, 0, sent.stderr);
    t.equal(json(sent).sent, true);
    t.equal(json(sent).reset_url, undefined, 'a mailed link is not printed');
    const queued = await store.withDb((db) => db.selectFrom('outbox').select(['kind', 'payload']).execute());
    t.same(
      queued.map((m) => m.kind),
      ['password-reset'],
    );
    const noEmail = await runAdmin(['users', 'reset-link', 'carol', '--send'], store.env);
    t.equal(noEmail.code, 1);
    t.match(noEmail.message, 'has no email address: print the link instead');

    const off = await runAdmin(['users', 'invite', 'hatter@example.org'], store.env);
    t.equal(off.code, 1);
    t.match(off.message, 'sign-up is off (SIGNUP=off)');
    const invited = await runAdmin(['users', 'invite', 'hatter@example.org'], { ...store.env, SIGNUP: 'invite' });
    t.equal(invited.code, 0, invited.stderr);
    t.equal(invited.stdout, 'an invitation was queued for hatter@example.org\n');
    t.same(events(invited), ['admin.user.invited']);
    const invitation = await store.withDb((db) => db.selectFrom('outbox').select(['address']).where('kind', '=', 'invitation').execute());
    t.same(invitation, [{ address: 'hatter@example.org' }]);
    const member = await runAdmin(['users', 'invite', 'alice@example.com'], { ...store.env, SIGNUP: 'invite' });
    t.match(member.message, 'exists already');

    const common = await runAdmin(['users', 'set-password', 'alice', '--password-stdin'], store.env, { input: 'iloveyou123' });
    t.equal(common.code, 1);
    t.equal(common.message, 'sso-admin users set-password: the password was refused: password is among the most common breached passwords');
    const own = await runAdmin(['users', 'set-password', 'alice', '--password-stdin'], store.env, { input: 'Alice@Example.com' });
    t.equal(own.message, 'sso-admin users set-password: the password was refused: password must not be the username or email');
  },
);

t.test('users disable ends the sessions with back-channel logouts and revokes the tokens; enable lets the user in again', async (t) => {
  const store = await adminStore(t);
  const alice = await store.withDb(async (db) => {
    await seedApp(db);
    return signedInUser(db, 'alice', 'app', 2);
  });

  const refused = await runAdmin(['users', 'disable', 'alice'], store.env);
  t.equal(refused.code, 2);
  t.match(refused.message, 'pass --yes to do it without asking');

  const disabled = await runAdmin(['users', 'disable', 'alice', '--yes', '--json'], store.env);
  t.match(json(disabled), {
    id: alice.userId,
    disabled: true,
    disabled_at: /Z$/,
    already_disabled: false,
    sessions_ended: 2,
    backchannel_logouts_queued: 2,
    codes_revoked: 2,
    refresh_tokens_revoked: 2,
    access_tokens_revoked: 2,
  });
  t.match(
    disabled.logs.find((l) => l.event === 'admin.user.disabled'),
    { userId: alice.userId, sessionsEnded: 2, logoutsQueued: 2, accessTokensRevoked: 2 },
  );

  const enabled = await runAdmin(['users', 'enable', 'alice', '--json'], store.env);
  t.match(json(enabled), { id: alice.userId, disabled: false, changed: true });
  t.same(events(enabled), ['admin.user.enabled']);

  const unknown = await runAdmin(['users', 'enable', 'bob'], store.env);
  t.equal(unknown.code, 1);
  t.equal(unknown.message, 'sso-admin users enable: no user "bob" (give a user id or a username)');

  const after = await store.withDb(async (db) => ({ state: await liveState(db, alice.userId), user: await storedUser(db, 'alice') }));
  t.same(
    after.state,
    { sessions: 0, codes: 0, refreshTokens: 0, accessTokens: 0, queuedLogouts: 2 },
    'enabling revives nothing that was revoked',
  );
  t.equal(after.user!.disabled_at, null);
});

t.test('users delete refuses without --yes, then ends the sessions (queuing back-channel logouts) and deletes the user', async (t) => {
  const store = await adminStore(t);
  const alice = await store.withDb(async (db) => {
    await seedApp(db);
    return signedInUser(db, 'alice', 'app', 1);
  });

  const refused = await runAdmin(['users', 'delete', alice.userId], store.env);
  t.equal(refused.code, 2);
  t.match(refused.message, 'pass --yes to do it without asking');

  const deleted = await runAdmin(['users', 'delete', alice.userId, '--yes', '--json'], store.env);
  t.same(json(deleted), { id: alice.userId, username: 'alice', deleted: true, sessions_ended: 1, backchannel_logouts_queued: 1 });
  t.same(events(deleted), ['admin.user.deleted']);

  const after = await store.withDb(async (db) => ({
    user: await storedUser(db, 'alice'),
    logouts: await db.selectFrom('backchannel_logouts').select(['client_id', 'sub', 'sid']).execute(),
  }));
  t.equal(after.user, undefined);
  t.same(after.logouts, [{ client_id: 'app', sub: alice.userId, sid: alice.sids[0] }], 'the client will still be told');
});
