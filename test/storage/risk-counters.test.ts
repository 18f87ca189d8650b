// The attempt log's counters on a real database: typos excused by the sign-in that follows them, a tool with a
// fresh session per attempt counted as one machine, a browser with an established cookie not held to its crowd,
// and counts that stop at their thresholds.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import t from 'tap';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import type { PasswordSignIn } from '../../src/domain/accounts/password-sign-in.js';
import type { RiskReason } from '../../src/domain/risk/verdict.js';
import { applySeed } from '../../src/domain/admin/seed.js';
import { recordAttempt } from '../../src/storage/risk.js';
import { buildTestApp } from '../helpers/app.js';
import { CHROME_WINDOWS, FIREFOX_LINUX, signals } from '../helpers/device-signals.js';
import { signInAs, signInContext } from '../helpers/sign-in-context.js';

const test = await buildTestApp(t, { seed: { clients: [], users: [] } });
const ctx = await signInContext(t, test);
const policy = test.config.risk;

let network = 0;
/** An address in a /24 of its own, so that tests do not share network counters. */
const freshNetwork = () => `198.18.${++network}.1`;

async function newUser(name: string) {
  const user = { username: `${name}-${randomBytes(3).toString('hex')}`, password: `pw-${randomBytes(6).toString('hex')}` };
  await applySeed(test.db, new PasswordHasher(test.config.argon2), { clients: [], users: [user] });
  return user;
}

/** The verdict's reasons, for an outcome of any kind (a wrong password's are the early stage's). */
function reasons(outcome: PasswordSignIn): RiskReason[] {
  if (outcome.kind === 'signed-in' || outcome.kind === 'challenge') return outcome.verdict.reasons;
  if (outcome.kind === 'wrong-credentials' && outcome.evaluation) return outcome.evaluation.verdict.reasons;
  throw new Error(`no verdict: ${outcome.kind}`);
}

t.test('failures followed by a sign-in are excused: the next sign-in is not held to them (FAILED_ATTEMPTS_USER)', async (t) => {
  const user = await newUser('typist');
  const home = signals({ ip: freshNetwork() });
  const enrolled = await signInAs(ctx, user.username, user.password, home);
  const laptop = { ...home, deviceCookie: enrolled.deviceCookie };
  for (let i = 0; i < policy.userFailures; i += 1) await signInAs(ctx, user.username, 'typo', laptop);
  const after = await signInAs(ctx, user.username, user.password, laptop, { passChallenge: true });
  t.ok(reasons(after.outcome).includes('FAILED_ATTEMPTS_USER'), 'the failures count before the sign-in');
  const next = await signInAs(ctx, user.username, user.password, laptop);
  t.same(reasons(next.outcome), ['KNOWN_DEVICE'], 'and no longer once it has signed in');
});

t.test(
  'a tool with a fresh session per attempt is one machine: CREDENTIAL_STUFFING after RISK_STUFFING_DEVICE_LOGINS failing logins',
  async (t) => {
    const ip = freshNetwork();
    // Every attempt a new device cookie, as the sign-in page hands each new session one.
    const attempt = (login: string) =>
      signInAs(ctx, login, 'Summer2024!', signals({ ip, deviceCookie: randomBytes(16).toString('base64url') }));
    for (let i = 0; i < policy.stuffingDeviceLogins - 1; i += 1) await attempt(`victim-${i}@mail.example`);
    t.notOk(
      reasons((await attempt('one-more@mail.example')).outcome).includes('CREDENTIAL_STUFFING'),
      `${policy.stuffingDeviceLogins} failing logins before this one: not yet`,
    );
    t.ok(reasons((await attempt('and-another@mail.example')).outcome).includes('CREDENTIAL_STUFFING'));
  },
);

t.test('typos of people who then sign in do not add up to CREDENTIAL_STUFFING on a shared machine', async (t) => {
  const ip = freshNetwork();
  // A computer room: identical browsers on one network, each session a new cookie, every person mistyping once.
  for (let i = 0; i < policy.stuffingDeviceLogins + 2; i += 1) {
    const user = await newUser(`pupil${i}`);
    const seat = signals({ ip, userAgent: CHROME_WINDOWS, deviceCookie: randomBytes(16).toString('base64url') });
    await signInAs(ctx, user.username, 'typo', seat);
    const { outcome } = await signInAs(ctx, user.username, user.password, seat, { passChallenge: true });
    t.notOk(reasons(outcome).includes('CREDENTIAL_STUFFING'), `pupil ${i}`);
  }
});

t.test('a browser with an established cookie is not held to the failing logins of its network and fingerprint', async (t) => {
  const ip = freshNetwork();
  const user = await newUser('neighbour');
  const enrolled = await signInAs(ctx, user.username, user.password, signals({ ip }));
  // A tool on the same network with the same browser headers, a fresh session per attempt, many usernames.
  for (let i = 0; i < policy.stuffingNetworkLogins; i += 1) {
    await signInAs(ctx, `leaked-${i}@mail.example`, 'Passw0rd1', signals({ ip, deviceCookie: randomBytes(16).toString('base64url') }));
  }
  const neighbour = await signInAs(ctx, user.username, user.password, signals({ ip, deviceCookie: enrolled.deviceCookie }));
  t.same(reasons(neighbour.outcome), ['KNOWN_DEVICE'], 'the enrolled browser answers for its own attempts only');
  const stranger = await signInAs(
    ctx,
    'someone@mail.example',
    'whatever1',
    signals({ ip, userAgent: FIREFOX_LINUX.replace('128', '129') }),
  );
  t.ok(reasons(stranger.outcome).includes('CREDENTIAL_STUFFING'), 'a browser without one is part of the crowd');
});

t.test('counts stop at their thresholds, whatever the flood', async (t) => {
  const now = new Date();
  const keys = {
    loginKey: 'flooded',
    deviceKey: 'c:flood',
    fingerprintKey: 'fp-flood',
    networkKey: 'net-flood',
    login: 'flooded',
    ip: '192.0.2.77',
    cookieHash: null,
  };
  const windows = {
    now,
    velocitySince: new Date(now.getTime() - 600_000),
    stuffingSince: new Date(now.getTime() - 3_600_000),
    caps: { deviceAttempts: 4, networkAttempts: 5, deviceLogins: 2, networkLogins: 3, fingerprintLogins: 4, loginFailures: 1 },
  };
  for (let i = 0; i < 12; i += 1) await recordAttempt(test.db, { ...keys, loginKey: `flooded-${i % 6}` }, windows);
  const facts = await recordAttempt(test.db, keys, windows);
  t.match(facts, {
    deviceAttempts: 4,
    networkAttempts: 5,
    deviceLogins: 2,
    networkLogins: 3,
    fingerprintLogins: 4,
    loginFailures: 0,
    establishedCookie: false,
  });
  const again = await recordAttempt(test.db, keys, windows);
  t.equal(again.loginFailures, 1, 'the login cap');
});

t.test('the attempt statement reads the user the login names, with their facts: the sign-in makes no other lookup', async (t) => {
  const suffix = randomBytes(3).toString('hex');
  const owner = { username: `owner-${suffix}`, password: 'pw-owner-1', email: `Owner-${suffix}@Mail.Example` };
  // Another user whose username is the owner's email: a username match comes first, as at sign-in before.
  const squatter = { username: owner.email.toLowerCase(), password: 'pw-squatter-1' };
  await applySeed(test.db, new PasswordHasher(test.config.argon2), { clients: [], users: [owner, squatter] });
  // A browser model of its own: the other tests' failing logins count against theirs.
  const home = signals({ ip: freshNetwork(), userAgent: FIREFOX_LINUX.replace(/128\.0/g, '133.0') });
  const enrolled = await signInAs(ctx, owner.username, owner.password, home);
  t.equal(enrolled.outcome.kind, 'signed-in');

  const now = new Date();
  const windows = {
    now,
    velocitySince: now,
    stuffingSince: now,
    caps: { deviceAttempts: 1, networkAttempts: 1, deviceLogins: 1, networkLogins: 1, fingerprintLogins: 1, loginFailures: 1 },
  };
  const attempt = (login: string, cookieHash: string | null) =>
    recordAttempt(
      test.db,
      {
        loginKey: `lookup-${suffix}`,
        deviceKey: 'c:lookup',
        fingerprintKey: 'fp-lookup',
        networkKey: `net-lookup-${suffix}`,
        login,
        ip: null,
        cookieHash,
      },
      windows,
    );

  const byName = await attempt(owner.username, null);
  t.equal(byName.account?.user.username, owner.username, 'by username');
  t.type(byName.account?.user.created_at, Date, 'the row as the users table types it');
  t.match(
    byName.account?.facts,
    { deviceCount: 1, device: null, networkKnown: false, ruleEffects: [] },
    'one device, not this cookie, not this network',
  );
  // Issue 21: only whether the user has a device is read, so its cost does not grow with their devices.
  const ownerId = (await test.db.selectFrom('users').select('id').where('username', '=', owner.username).executeTakeFirstOrThrow()).id;
  const seen = new Date();
  await test.db
    .insertInto('devices')
    .values(
      [1, 2, 3].map((i) => ({
        user_id: ownerId,
        cookie_hash: `more-${suffix}-${i}`,
        fingerprint: `fp-${i}`,
        network_key: `net-${i}`,
        label: 'another browser',
        first_seen_at: seen,
        last_seen_at: seen,
      })),
    )
    .execute();
  t.equal((await attempt(owner.username, null)).account?.facts.deviceCount, 1, 'four devices still count as one: the count stops at one');
  t.equal(
    (await attempt(owner.email.toLowerCase(), null)).account?.user.username,
    squatter.username,
    'a username match before an email match',
  );
  t.equal((await attempt(`nobody-${suffix}`, null)).account, null, 'an unknown login names nobody');

  const owned = await sql<{
    id: string;
    cookie_hash: string;
  }>`SELECT d.id, d.cookie_hash FROM devices d JOIN users u ON u.id = d.user_id WHERE u.username = ${owner.username}`.execute(test.db);
  const device = owned.rows[0]!;
  const fromDevice = await attempt(owner.username, device.cookie_hash);
  t.match(fromDevice.account?.facts.device, { id: device.id, trusted: false }, "the user's device with this cookie");
});
