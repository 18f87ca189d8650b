// `sso-admin sessions ...` and `sso-admin devices ...` as an operator runs them, in this process on a database of
// the test's own (see admin-cli-clients.test.ts), on a user signed in from several devices.
import t from 'tap';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { applySeed } from '../../../src/domain/admin/seed.js';
import type { Db } from '../../../src/storage/database.js';
import { adminStore, events, json, liveState, runAdmin, signedInUser } from '../../helpers/admin-cli.js';
import { testConfig } from '../../helpers/app.js';

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
  "sessions list shows a user's live sessions; sessions revoke ends them all, queuing back-channel logouts, and leaves tokens",
  async (t) => {
    const store = await adminStore(t);
    const alice = await store.withDb(async (db) => {
      await seedApp(db);
      return signedInUser(db, 'alice', 'app', 2);
    });

    const list = await runAdmin(['sessions', 'list', '--user', 'alice', '--json'], store.env);
    const listed = json<Array<Record<string, unknown>>>(list);
    t.same(listed.map((s) => s.sid).sort(), [...alice.sids].sort());
    t.match(listed[0], { auth_time: /Z$/, expires_at: /Z$/, amr: ['pwd'], device: /^Browser \d on Linux$/, clients: ['app'] });

    const refused = await runAdmin(['sessions', 'revoke', '--user', 'alice'], store.env);
    t.equal(refused.code, 2);
    t.match(refused.message, 'pass --yes to do it without asking');

    const revoked = await runAdmin(['sessions', 'revoke', '--user', 'alice', '--yes'], store.env);
    t.equal(revoked.code, 0, revoked.stderr);
    t.equal(revoked.stdout, '2 sessions of "alice" ended (2 back-channel logouts queued)\n');
    t.match(
      revoked.logs.find((l) => l.event === 'admin.sessions.revoked'),
      { userId: alice.userId, sessionsEnded: 2, logoutsQueued: 2 },
    );

    const unknown = await runAdmin(['sessions', 'revoke', '--user', 'bob', '--yes'], store.env);
    t.equal(unknown.code, 1);
    t.equal(unknown.message, 'sso-admin sessions revoke: no user "bob" (give a user id or a username)');

    const state = await store.withDb((db) => liveState(db, alice.userId));
    t.same(state, { sessions: 0, codes: 2, refreshTokens: 2, accessTokens: 2, queuedLogouts: 2 }, 'as at a logout, tokens stay');
  },
);

t.test(
  "devices list shows a user's devices; devices revoke ends one device's sessions and revokes its tokens, or every device's",
  async (t) => {
    const store = await adminStore(t);
    const alice = await store.withDb(async (db) => {
      await seedApp(db);
      return signedInUser(db, 'alice', 'app', 3);
    });
    const [first, ...others] = alice.deviceIds;

    const list = await runAdmin(['devices', 'list', '--user', 'alice'], store.env);
    t.equal(list.code, 0, list.stderr);
    const lines = list.stdout.trimEnd().split('\n');
    t.match(lines[0], /^id +device +first seen +last seen +sign-ins +trusted$/);
    t.same(
      lines
        .slice(1)
        .map((l) => l.split(/ {2,}/)[0])
        .sort(),
      [...alice.deviceIds].sort(),
    );

    const one = await runAdmin(['devices', 'revoke', '--user', 'alice', '--device', first!, '--yes', '--json'], store.env);
    t.same(json(one), {
      user_id: alice.userId,
      username: 'alice',
      revoked: [{ id: first, sessions_ended: 1, backchannel_logouts_queued: 1 }],
    });
    t.same(events(one), ['device_revoked', 'admin.device.revoked'], 'the security event, and the admin action');

    const again = await runAdmin(['devices', 'revoke', '--user', 'alice', '--device', first!, '--yes'], store.env);
    t.equal(again.code, 1);
    t.equal(again.message, `sso-admin devices revoke: user "alice" has no device "${first}" that is not revoked (devices list shows them)`);

    const state = await store.withDb((db) => liveState(db, alice.userId));
    t.same(
      state,
      { sessions: 2, codes: 2, refreshTokens: 2, accessTokens: 2, queuedLogouts: 1 },
      "one device's session and tokens are gone",
    );

    const all = await runAdmin(['devices', 'revoke', '--user', alice.userId, '--yes', '--json'], store.env);
    t.same(
      json<{ revoked: Array<{ id: string }> }>(all)
        .revoked.map((d) => d.id)
        .sort(),
      [...others].sort(),
    );
    t.same(await store.withDb((db) => liveState(db, alice.userId)), {
      sessions: 0,
      codes: 0,
      refreshTokens: 0,
      accessTokens: 0,
      queuedLogouts: 3,
    });

    const refused = await runAdmin(['devices', 'revoke', '--user', 'alice'], store.env);
    t.equal(refused.code, 2);
    t.match(refused.message, 'pass --yes to do it without asking');
  },
);
