// Every risk reason of issue 5, firing and not firing, through signInWithPassword on a real database with an
// injected clock: the counters are SQL over the attempt log, the user facts SQL over devices and networks, and
// the rules a table. The policy is written out (test/helpers/risk.ts), with smaller counter thresholds here.
import { createMetrics } from '../../src/metrics.js';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import t from 'tap';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import { CHROME_WINDOWS, FIREFOX_LINUX, HEADLESS_CHROME, signals } from '../helpers/device-signals.js';
import { riskEnv } from '../helpers/risk.js';
import type { ProviderContext } from '../../src/domain/context.js';
import { signInWithPassword, type PasswordSignIn } from '../../src/domain/accounts/password-sign-in.js';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import type { DeviceSignals } from '../../src/domain/risk/signals.js';
import type { Verdict } from '../../src/domain/risk/verdict.js';
import { RandomSource, randomToken } from '../../src/domain/secrets.js';
import { applySeed } from '../../src/domain/admin/seed.js';
import { completeSignIn } from '../../src/domain/accounts/sign-in-completion.js';
import { insertRiskRule } from '../../src/storage/risk.js';
import { findUserByUsername } from '../../src/storage/users.js';

const CHROME_HINTS = { brands: '"Chromium";v="130", "Google Chrome";v="130"', mobile: '?0', platform: '"Windows"' };

// Counter thresholds small enough to reach in a test; weights and score thresholds as in test/helpers/risk.ts.
const config = testConfig(
  riskEnv({
    RISK_DEVICE_VELOCITY: '5',
    RISK_NETWORK_VELOCITY: '8',
    RISK_STUFFING_DEVICE_LOGINS: '4',
    RISK_STUFFING_NETWORK_LOGINS: '6',
    RISK_STUFFING_FINGERPRINT_LOGINS: '10',
    RISK_USER_FAILURES: '3',
    // The throttle is tested elsewhere (test/http/accounts/sign-in-throttle.test.ts): out of the way here.
    SIGN_IN_IP_FREE_ATTEMPTS: '0',
    SIGN_IN_ACCOUNT_FREE_ATTEMPTS: '1000',
  }),
);

class CountingHasher extends PasswordHasher {
  verifications = 0;
  override async verify(hash: string, plain: string): Promise<boolean> {
    this.verifications += 1;
    return super.verify(hash, plain);
  }
}

const database = await createTestDatabase();
t.teardown(() => database.drop());
const db = database.handle.db;
let offsetMs = 0;
const passwords = new CountingHasher(config.argon2, { limits: config.passwordWork });
const ctx = {
  config,
  db,
  clock: () => new Date(Date.now() + offsetMs),
  passwords,
  random: new RandomSource(),
  deviceSecret: Buffer.from('a-device-secret-of-at-least-32-characters'),
  log: pino({ level: 'silent' }),
  metrics: createMetrics(),
} as unknown as ProviderContext;
const advance = (seconds: number) => {
  offsetMs += seconds * 1000;
};
// Every test's devices are the same few browser models, and a fingerprint counts the failing logins of every
// browser of its model: each test starts a stuffing window after the last one's failures.
t.beforeEach(() => advance(config.risk.stuffingWindowSeconds + 1));

interface User {
  id: string;
  username: string;
  email: string;
  password: string;
}

async function newUser(name: string): Promise<User> {
  const username = `${name}-${randomBytes(3).toString('hex')}`;
  const user = { username, email: `${username}@example.com`, password: `pw-${randomBytes(6).toString('hex')}` };
  await applySeed(db, new PasswordHasher(config.argon2), { clients: [], users: [user] });
  return { ...user, id: (await findUserByUsername(db, username))!.id };
}

// Each test draws networks of its own, so that no counter of one test reaches into another.
let networks = 0;
/** A fresh IPv4 /24, as a function from host number to address. */
function network(): (host: number) => string {
  networks += 1;
  const n = networks;
  return (host) => `10.${Math.floor(n / 250)}.${n % 250}.${host}`;
}

const newCookie = () => randomToken(16);

/** A desktop Firefox with a device cookie of its own on a network of its own, unless told otherwise. */
function device(overrides: Partial<DeviceSignals> = {}): DeviceSignals {
  return signals({ ip: network()(1), deviceCookie: newCookie(), userAgent: FIREFOX_LINUX, ...overrides });
}

/** The verdict of one attempt: from the outcome when the password was accepted, else from the stored block event. */
async function verdictOf(
  login: string,
  password: string,
  sig: DeviceSignals,
): Promise<{ outcome: PasswordSignIn; verdict: Verdict | null }> {
  const before = await db
    .selectFrom('security_events')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  const outcome = await signInWithPassword(ctx, login, password, sig);
  if (outcome.kind === 'signed-in' || outcome.kind === 'challenge') return { outcome, verdict: outcome.verdict };
  const blocked = await db
    .selectFrom('security_events')
    .select('details')
    .where('type', '=', 'sign_in_blocked')
    .where('id', '>', String(before?.id ?? 0))
    .orderBy('id', 'desc')
    .executeTakeFirst();
  const details = blocked && (typeof blocked.details === 'string' ? JSON.parse(blocked.details) : blocked.details);
  return {
    outcome,
    verdict: details ? { action: details.action, score: details.score, reasons: details.reasons, device: details.device } : null,
  };
}

/** The reasons of a right password from `sig`. */
async function reasonsFor(user: User, sig: DeviceSignals, login = user.username): Promise<string[]> {
  const { verdict } = await verdictOf(login, user.password, sig);
  if (!verdict) throw new Error('the right password got no verdict');
  return verdict.reasons;
}

/** A whole sign-in (the second factor taken as passed when asked): enrols or updates the device. Returns its cookie. */
async function signInFully(user: User, sig: DeviceSignals): Promise<string> {
  const outcome = await signInWithPassword(ctx, user.username, user.password, sig);
  if (outcome.kind !== 'signed-in' && outcome.kind !== 'challenge') {
    const last = await db.selectFrom('security_events').select('details').orderBy('id', 'desc').executeTakeFirst();
    throw new Error(`not accepted: ${outcome.kind} ${JSON.stringify(last?.details)}`);
  }
  const completed = await completeSignIn(ctx, { ...outcome, amr: ['pwd'] });
  return sig.deviceCookie ?? completed.newDeviceCookie!;
}

/** `n` failed attempts with a wrong password. */
async function fail(n: number, login: (i: number) => string, sig: (i: number) => DeviceSignals): Promise<void> {
  for (let i = 0; i < n; i += 1) {
    const { outcome } = await verdictOf(login(i), 'wrong-password', sig(i));
    if (outcome.kind !== 'wrong-credentials') throw new Error(`attempt ${i}: ${outcome.kind}`);
  }
}

t.test('NEW_DEVICE', async (t) => {
  t.test('NEW_DEVICE fires when a user who has a device signs in from a browser with another device cookie', async (t) => {
    const user = await newUser('newdev');
    const home = network();
    await signInFully(user, device({ ip: home(1) }));
    t.ok((await reasonsFor(user, device({ ip: home(2) }))).includes('NEW_DEVICE'));
  });

  t.test('NEW_DEVICE fires after the user revoked every device they had: the next device is news, not an enrolment', async (t) => {
    const user = await newUser('revokedall');
    const home = network();
    await signInFully(user, device({ ip: home(1) }));
    await db.updateTable('devices').set({ revoked_at: ctx.clock() }).where('user_id', '=', user.id).execute();
    t.ok((await reasonsFor(user, device({ ip: home(2) }))).includes('NEW_DEVICE'));
  });

  t.test("NEW_DEVICE does not fire for a user's first sign-in (the first device is enrolled) nor from a device of theirs", async (t) => {
    const user = await newUser('firstdev');
    const first = device();
    t.same(await reasonsFor(user, first), [], 'the first sign-in has no reason at all');
    await signInFully(user, first);
    t.notOk((await reasonsFor(user, first)).includes('NEW_DEVICE'), 'the enrolled device is not new');
  });
});

t.test('KNOWN_DEVICE', async (t) => {
  t.test('KNOWN_DEVICE fires for a browser whose device cookie the user signed in with before', async (t) => {
    const user = await newUser('known');
    const laptop = device();
    await signInFully(user, laptop);
    t.same(await reasonsFor(user, laptop), ['KNOWN_DEVICE']);
  });

  t.test("KNOWN_DEVICE does not fire for another user's device cookie, nor for a device the user revoked", async (t) => {
    const alice = await newUser('known-a');
    const bob = await newUser('known-b');
    const shared = device();
    await signInFully(alice, device({ ip: shared.ip }));
    await signInFully(bob, shared);
    t.notOk((await reasonsFor(alice, shared)).includes('KNOWN_DEVICE'), "bob's device is not alice's");
    const laptop = device();
    await signInFully(alice, laptop);
    await db.updateTable('devices').set({ revoked_at: ctx.clock() }).where('user_id', '=', alice.id).execute();
    const reasons = await reasonsFor(alice, laptop);
    t.notOk(reasons.includes('KNOWN_DEVICE'), 'a revoked device is no longer known');
    t.ok(reasons.includes('NEW_DEVICE'), 'it signs in as a new device');
  });
});

t.test('NEW_NETWORK', async (t) => {
  t.test('NEW_NETWORK fires for a known device on another IPv4 /24 or another IPv6 /48', async (t) => {
    const user = await newUser('travel');
    const cookie = await signInFully(user, device({ ip: '192.0.2.10' }));
    t.same(await reasonsFor(user, device({ ip: '198.51.100.10', deviceCookie: cookie })), ['KNOWN_DEVICE', 'NEW_NETWORK'], 'another /24');
    const v6 = await newUser('travel6');
    const cookie6 = await signInFully(v6, device({ ip: '2001:db8:aa::10' }));
    t.same(await reasonsFor(v6, device({ ip: '2001:db8:ab::10', deviceCookie: cookie6 })), ['KNOWN_DEVICE', 'NEW_NETWORK'], 'another /48');
  });

  t.test(
    'NEW_NETWORK does not fire for another address of a known /24 or /48, nor for the IPv4-mapped form of a known address',
    async (t) => {
      const user = await newUser('homenet');
      const cookie = await signInFully(user, device({ ip: '192.0.2.10' }));
      t.same(await reasonsFor(user, device({ ip: '192.0.2.200', deviceCookie: cookie })), ['KNOWN_DEVICE'], 'another host of the /24');
      t.same(await reasonsFor(user, device({ ip: '::ffff:192.0.2.99', deviceCookie: cookie })), ['KNOWN_DEVICE'], 'IPv4-mapped');
      const v6 = await newUser('homenet6');
      const cookie6 = await signInFully(v6, device({ ip: '2001:db8:cc:1::10' }));
      t.same(
        await reasonsFor(v6, device({ ip: '2001:db8:cc:ff00::1', deviceCookie: cookie6 })),
        ['KNOWN_DEVICE'],
        'another /64 of the /48',
      );
    },
  );
});

t.test('AUTOMATION', async (t) => {
  t.test('AUTOMATION fires when the page script reports navigator.webdriver, and for a headless user agent', async (t) => {
    const user = await newUser('bot');
    t.ok((await reasonsFor(user, device({ client: { webdriver: true } }))).includes('AUTOMATION'), 'the automation flag');
    t.ok((await reasonsFor(user, device({ userAgent: HEADLESS_CHROME }))).includes('AUTOMATION'), 'HeadlessChrome');
  });

  t.test("AUTOMATION does not fire for an ordinary browser, with or without the page script's signals", async (t) => {
    const user = await newUser('human');
    t.notOk(
      (await reasonsFor(user, device({ client: { webdriver: false, timeZone: 'Europe/Paris', hardwareConcurrency: 8 } }))).includes(
        'AUTOMATION',
      ),
    );
    t.notOk((await reasonsFor(user, device({ client: {} }))).includes('AUTOMATION'), 'no JavaScript: no signal, no penalty');
  });
});

t.test('UA_HINTS_MISMATCH', async (t) => {
  t.test('UA_HINTS_MISMATCH fires for a Firefox user agent that sends Chromium client hints (a forged user agent)', async (t) => {
    const user = await newUser('forged');
    t.ok((await reasonsFor(user, device({ userAgent: FIREFOX_LINUX, hints: CHROME_HINTS }))).includes('UA_HINTS_MISMATCH'));
  });

  t.test('UA_HINTS_MISMATCH does not fire for Chrome on Windows whose hints say Windows', async (t) => {
    const user = await newUser('genuine');
    t.notOk((await reasonsFor(user, device({ userAgent: CHROME_WINDOWS, hints: CHROME_HINTS }))).includes('UA_HINTS_MISMATCH'));
  });
});

t.test('COOKIE_FINGERPRINT_MISMATCH', async (t) => {
  t.test(
    'COOKIE_FINGERPRINT_MISMATCH fires when a known device cookie comes from another browser and system (a copied cookie)',
    async (t) => {
      const user = await newUser('copied');
      const cookie = await signInFully(user, device({ userAgent: FIREFOX_LINUX }));
      const reasons = await reasonsFor(user, device({ userAgent: CHROME_WINDOWS, hints: CHROME_HINTS, deviceCookie: cookie }));
      t.ok(reasons.includes('COOKIE_FINGERPRINT_MISMATCH'), String(reasons));
    },
  );

  t.test('COOKIE_FINGERPRINT_MISMATCH does not fire when the same browser comes back after a major update', async (t) => {
    const user = await newUser('updated');
    const home = network();
    const cookie = await signInFully(user, device({ ip: home(1), userAgent: FIREFOX_LINUX }));
    const updated = FIREFOX_LINUX.replace(/128\.0/g, '131.0');
    t.same(await reasonsFor(user, device({ ip: home(1), userAgent: updated, deviceCookie: cookie })), ['KNOWN_DEVICE']);
  });
});

t.test('VELOCITY_DEVICE', async (t) => {
  t.test('VELOCITY_DEVICE fires on the attempt past RISK_DEVICE_VELOCITY (5) from one device within the window', async (t) => {
    const user = await newUser('fastdev');
    const sig = device();
    await fail(
      5,
      () => `nobody-${user.username}`,
      () => sig,
    );
    t.ok((await reasonsFor(user, sig)).includes('VELOCITY_DEVICE'));
  });

  t.test('VELOCITY_DEVICE does not fire on the fifth attempt, nor once the window has passed', async (t) => {
    const user = await newUser('slowdev');
    const sig = device();
    await fail(
      4,
      () => `nobody-${user.username}`,
      () => sig,
    );
    t.notOk((await reasonsFor(user, sig)).includes('VELOCITY_DEVICE'), 'the fifth attempt');
    await fail(
      4,
      () => `nobody-${user.username}`,
      () => sig,
    );
    advance(config.risk.velocityWindowSeconds + 1);
    t.notOk((await reasonsFor(user, sig)).includes('VELOCITY_DEVICE'), 'after RISK_VELOCITY_WINDOW_SECONDS');
  });
});

t.test('VELOCITY_NETWORK', async (t) => {
  t.test('VELOCITY_NETWORK fires on the attempt past RISK_NETWORK_VELOCITY (8) from one /24, whatever the devices', async (t) => {
    const user = await newUser('fastnet');
    const net = network();
    await fail(
      8,
      () => `nobody-${user.username}`,
      (i) => device({ ip: net(i + 1) }),
    );
    const reasons = await reasonsFor(user, device({ ip: net(200) }));
    t.ok(reasons.includes('VELOCITY_NETWORK'), String(reasons));
    t.notOk(reasons.includes('VELOCITY_DEVICE'), 'each device made one attempt');
  });

  t.test('VELOCITY_NETWORK does not fire on the eighth attempt from a /24, nor from the next /24', async (t) => {
    const user = await newUser('slownet');
    const net = network();
    await fail(
      7,
      () => `nobody-${user.username}`,
      (i) => device({ ip: net(i + 1) }),
    );
    t.notOk((await reasonsFor(user, device({ ip: net(200) }))).includes('VELOCITY_NETWORK'), 'the eighth');
    await fail(
      5,
      () => `nobody-${user.username}`,
      (i) => device({ ip: net(i + 10) }),
    );
    t.notOk((await reasonsFor(user, device({ ip: network()(1) }))).includes('VELOCITY_NETWORK'), 'another /24');
  });
});

t.test('CREDENTIAL_STUFFING', async (t) => {
  t.test('CREDENTIAL_STUFFING fires after RISK_STUFFING_DEVICE_LOGINS (4) usernames failed from one device', async (t) => {
    const user = await newUser('stuffdev');
    const sig = device();
    await fail(
      4,
      (i) => `victim-${i}-${user.username}`,
      () => sig,
    );
    const { outcome, verdict } = await verdictOf(user.username, user.password, sig);
    t.ok(verdict?.reasons.includes('CREDENTIAL_STUFFING'));
    t.equal(verdict?.action, 'BLOCK', 'its weight reaches the block score');
    t.equal(outcome.kind, 'wrong-credentials', 'blocked like a wrong password');
  });

  t.test('CREDENTIAL_STUFFING fires after RISK_STUFFING_NETWORK_LOGINS (6) usernames failed from one /24 on as many devices', async (t) => {
    const user = await newUser('stuffnet');
    const net = network();
    await fail(
      6,
      (i) => `victim-${i}-${user.username}`,
      (i) => device({ ip: net(i + 1) }),
    );
    const { verdict } = await verdictOf(user.username, user.password, device({ ip: net(100) }));
    t.ok(verdict?.reasons.includes('CREDENTIAL_STUFFING'));
  });

  t.test(
    'CREDENTIAL_STUFFING fires after RISK_STUFFING_FINGERPRINT_LOGINS (10) usernames failed from one cookieless fingerprint rotating networks',
    async (t) => {
      const user = await newUser('stuffrot');
      const agent = FIREFOX_LINUX.replace(/128\.0/g, '97.0'); // a fingerprint of this test's own
      await fail(
        10,
        (i) => `victim-${i}-${user.username}`,
        () => device({ ip: network()(7), userAgent: agent, deviceCookie: undefined }),
      );
      const { verdict } = await verdictOf(
        user.username,
        user.password,
        device({ ip: network()(7), userAgent: agent, deviceCookie: undefined }),
      );
      t.ok(verdict?.reasons.includes('CREDENTIAL_STUFFING'), String(verdict?.reasons));
    },
  );

  t.test(
    'CREDENTIAL_STUFFING does not fire for a browser model many users share, when each of them mistyped on a device and network of their own',
    async (t) => {
      const agent = FIREFOX_LINUX.replace(/128\.0/g, '96.0'); // a fingerprint of this test's own
      for (let i = 0; i < 8; i += 1) {
        const someone = await newUser(`crowd${i}`);
        await fail(
          1,
          () => someone.username,
          () => device({ userAgent: agent }),
        );
      }
      const user = await newUser('crowd-last');
      t.notOk((await reasonsFor(user, device({ userAgent: agent }))).includes('CREDENTIAL_STUFFING'), 'a browser with its cookie');
      t.notOk(
        (await reasonsFor(user, device({ userAgent: agent, deviceCookie: undefined }))).includes('CREDENTIAL_STUFFING'),
        'even without a cookie: those failures had cookies',
      );
    },
  );

  t.test('CREDENTIAL_STUFFING early block costs no argon2 work', async (t) => {
    const user = await newUser('stuffcost');
    const sig = device();
    await fail(
      4,
      (i) => `victim-${i}-${user.username}`,
      () => sig,
    );
    const spent = passwords.verifications;
    const { outcome } = await verdictOf(user.username, user.password, sig);
    t.equal(outcome.kind, 'wrong-credentials');
    t.equal(passwords.verifications, spent, 'the password was not checked');
  });

  t.test(
    'CREDENTIAL_STUFFING does not fire for one username retried from one device, nor for a family computer several users sign in on',
    async (t) => {
      const user = await newUser('retry');
      const sig = device();
      await fail(
        2,
        () => user.username,
        () => sig,
      );
      t.notOk((await reasonsFor(user, sig)).includes('CREDENTIAL_STUFFING'), 'one username, typed wrong twice');
      const family = device();
      for (let i = 0; i < 5; i += 1) await signInFully(await newUser(`family${i}`), family);
      const last = await newUser('family-last');
      t.notOk((await reasonsFor(last, family)).includes('CREDENTIAL_STUFFING'), 'logins that succeeded are no stuffing');
    },
  );
});

t.test('FAILED_ATTEMPTS_USER', async (t) => {
  t.test('FAILED_ATTEMPTS_USER fires after RISK_USER_FAILURES (3) failures on the login, from anywhere', async (t) => {
    const user = await newUser('brute');
    await fail(
      3,
      () => user.username,
      () => device(),
    );
    t.ok((await reasonsFor(user, device())).includes('FAILED_ATTEMPTS_USER'));
  });

  t.test(
    'FAILED_ATTEMPTS_USER does not fire after two failures, for failures on another login, nor for failures older than the window',
    async (t) => {
      const user = await newUser('typo');
      await fail(
        2,
        () => user.username,
        () => device(),
      );
      t.notOk((await reasonsFor(user, device())).includes('FAILED_ATTEMPTS_USER'), 'two failures');
      const other = await newUser('typo-other');
      await fail(
        3,
        () => other.username,
        () => device(),
      );
      const old = await newUser('typo-old');
      await fail(
        3,
        () => old.username,
        () => device(),
      );
      advance(config.risk.stuffingWindowSeconds + 1);
      t.notOk((await reasonsFor(old, device())).includes('FAILED_ATTEMPTS_USER'), 'failures older than RISK_STUFFING_WINDOW_SECONDS');
    },
  );

  t.test('FAILED_ATTEMPTS_USER does not fire for failures made before the user last signed in', async (t) => {
    const user = await newUser('mistyped');
    const laptop = device();
    await fail(
      3,
      () => user.username,
      () => laptop,
    );
    await signInFully(user, laptop); // challenged for those failures, and through
    t.notOk((await reasonsFor(user, laptop)).includes('FAILED_ATTEMPTS_USER'), 'the failures are behind them');
  });
});

t.test('RULE_ALLOW', async (t) => {
  t.test('RULE_ALLOW fires for an address inside an allowed network and lets in what would be challenged', async (t) => {
    const user = await newUser('lab');
    const lab = network();
    await insertRiskRule(db, { kind: 'network', value: `${lab(0)}/24`, effect: 'allow', note: 'test lab', createdAt: ctx.clock() });
    const { outcome, verdict } = await verdictOf(user.username, user.password, device({ ip: lab(42), userAgent: HEADLESS_CHROME }));
    t.ok(verdict?.reasons.includes('RULE_ALLOW'));
    t.ok(verdict?.reasons.includes('AUTOMATION'), 'the other reasons are still reported');
    t.equal(outcome.kind, 'signed-in');
  });

  t.test('RULE_ALLOW does not fire for an address outside the allowed network', async (t) => {
    const user = await newUser('outside');
    const lab = network();
    await insertRiskRule(db, { kind: 'network', value: `${lab(0)}/24`, effect: 'allow', note: null, createdAt: ctx.clock() });
    const { outcome, verdict } = await verdictOf(user.username, user.password, device({ ip: network()(42), userAgent: HEADLESS_CHROME }));
    t.notOk(verdict?.reasons.includes('RULE_ALLOW'));
    t.equal(outcome.kind, 'challenge', 'automation is challenged as usual');
  });
});

t.test('RULE_BLOCK', async (t) => {
  t.test(
    'RULE_BLOCK fires for a blocked username, case aside: the right password is refused like a wrong one, with no argon2 work',
    async (t) => {
      const user = await newUser('banned');
      await insertRiskRule(db, {
        kind: 'username',
        value: user.username.toLowerCase(),
        effect: 'block',
        note: null,
        createdAt: ctx.clock(),
      });
      const spent = passwords.verifications;
      const { outcome, verdict } = await verdictOf(`  ${user.username.toUpperCase()} `, user.password, device());
      t.equal(outcome.kind, 'wrong-credentials');
      t.same(verdict?.reasons, ['RULE_BLOCK']);
      t.equal(passwords.verifications, spent, 'no argon2 work');
    },
  );

  t.test('RULE_BLOCK fires for a blocked username signing in with its email address', async (t) => {
    const user = await newUser('banned-mail');
    await insertRiskRule(db, { kind: 'username', value: user.username, effect: 'block', note: null, createdAt: ctx.clock() });
    const { outcome, verdict } = await verdictOf(user.email, user.password, device());
    t.equal(outcome.kind, 'wrong-credentials');
    t.ok(verdict?.reasons.includes('RULE_BLOCK'));
  });

  t.test('RULE_BLOCK fires for a blocked device and for a blocked network', async (t) => {
    const user = await newUser('banned-dev');
    const laptop = device();
    await signInFully(user, laptop);
    const row = await db.selectFrom('devices').select('id').where('user_id', '=', user.id).executeTakeFirstOrThrow();
    await insertRiskRule(db, { kind: 'device', value: row.id, effect: 'block', note: null, createdAt: ctx.clock() });
    t.equal((await verdictOf(user.username, user.password, laptop)).verdict?.reasons.includes('RULE_BLOCK'), true, 'the device');
    const other = await newUser('banned-net');
    const net = network();
    await insertRiskRule(db, { kind: 'network', value: `${net(0)}/24`, effect: 'block', note: null, createdAt: ctx.clock() });
    const { outcome, verdict } = await verdictOf(other.username, other.password, device({ ip: `::ffff:${net(9)}` }));
    t.ok(verdict?.reasons.includes('RULE_BLOCK'), 'the network, also for an IPv4-mapped address');
    t.equal(outcome.kind, 'wrong-credentials');
  });

  t.test('RULE_BLOCK fires for rules written loosely: a network with host bits set, a username in capitals', async (t) => {
    const user = await newUser('loose');
    const net = network();
    await insertRiskRule(db, { kind: 'network', value: `${net(5)}/24`, effect: 'block', note: null, createdAt: ctx.clock() });
    const { verdict } = await verdictOf(user.username, user.password, device({ ip: net(77) }));
    t.ok(verdict?.reasons.includes('RULE_BLOCK'), 'the /24 around the address written');
    const other = await newUser('Capital');
    await insertRiskRule(db, {
      kind: 'username',
      value: other.username.toUpperCase(),
      effect: 'block',
      note: null,
      createdAt: ctx.clock(),
    });
    t.ok((await verdictOf(other.username, other.password, device())).verdict?.reasons.includes('RULE_BLOCK'), 'as typed');
    t.ok((await verdictOf(other.email, other.password, device())).verdict?.reasons.includes('RULE_BLOCK'), 'through the email');
  });

  t.test('a network rule that is no network is refused when stored, so that it cannot break every sign-in', async (t) => {
    await t.rejects(insertRiskRule(db, { kind: 'network', value: 'the office', effect: 'block', note: null, createdAt: ctx.clock() }));
    const user = await newUser('unbroken');
    const { outcome } = await verdictOf(user.username, user.password, device());
    t.equal(outcome.kind, 'signed-in', 'sign-ins go on');
  });

  t.test('RULE_BLOCK does not fire for another username, device or network, and a block wins over an allow', async (t) => {
    const user = await newUser('free');
    await insertRiskRule(db, { kind: 'username', value: `${user.username}x`, effect: 'block', note: null, createdAt: ctx.clock() });
    const { outcome, verdict } = await verdictOf(user.username, user.password, device());
    t.notOk(verdict?.reasons.includes('RULE_BLOCK'));
    t.equal(outcome.kind, 'signed-in');
    const both = await newUser('both');
    const net = network();
    await insertRiskRule(db, { kind: 'network', value: `${net(0)}/24`, effect: 'allow', note: null, createdAt: ctx.clock() });
    await insertRiskRule(db, { kind: 'username', value: both.username, effect: 'block', note: null, createdAt: ctx.clock() });
    t.same((await verdictOf(both.username, both.password, device({ ip: net(3) }))).verdict?.reasons, ['RULE_BLOCK']);
  });
});
