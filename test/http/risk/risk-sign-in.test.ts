// Device intelligence over HTTP (issue 5): the device cookie, what is stored (nothing raw), the verdicts' effects on
// the sign-in page (ALLOW signs in, BLOCK answers exactly like a wrong password), devices and sessions, new-device
// notices and security events, the page without JavaScript, and two instances on one database agreeing.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import t from 'tap';
import { buildApp } from '../../../src/app.js';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { applySeed } from '../../../src/domain/admin/seed.js';
import { openDatabase } from '../../../src/storage/database.js';
import { insertRiskRule } from '../../../src/storage/risk.js';
import { findUserByUsername } from '../../../src/storage/users.js';
import { buildTestApp, CONFIDENTIAL, type TestApp } from '../../helpers/app.js';
import { DeviceBrowser } from '../../helpers/device-browser.js';
import { CHROME_WINDOWS, FIREFOX_LINUX } from '../../helpers/device-signals.js';
import { CapturingNotifier } from '../../helpers/notifier.js';
import { riskEnv } from '../../helpers/risk.js';

const WRONG_CREDENTIALS = 'The username or password is not correct.';
const SIGN_IN_REFUSED = 'This sign-in was refused. Try again later, or contact the administrator.';
const CHROME_HINTS = {
  'sec-ch-ua': '"Chromium";v="130", "Google Chrome";v="130"',
  'sec-ch-ua-mobile': '?0',
  'sec-ch-ua-platform': '"Windows"',
};
const DEVICE_COOKIE_TTL = 31_536_000;

const notifier = new CapturingNotifier();
const testApp: TestApp = await buildTestApp(t, {
  notifier,
  env: riskEnv({
    DEVICE_COOKIE_TTL_SECONDS: String(DEVICE_COOKIE_TTL),
    RISK_STUFFING_DEVICE_LOGINS: '4',
    SIGN_IN_IP_FREE_ATTEMPTS: '0',
    SIGN_IN_ACCOUNT_FREE_ATTEMPTS: '100',
  }),
});
const { app, db } = testApp;

async function newUser(name: string) {
  const username = `${name}-${randomBytes(3).toString('hex')}`;
  const user = { username, email: `${username}@example.com`, password: `pw-${randomBytes(6).toString('hex')}` };
  await applySeed(db, new PasswordHasher(testApp.config.argon2), { clients: [], users: [user] });
  return { ...user, id: (await findUserByUsername(db, username))!.id };
}

let networks = 0;
/** A browser on a network of its own (so that no counter of one test reaches into another). */
function newBrowser(options: { userAgent?: string; headers?: Record<string, string>; ip?: string } = {}) {
  networks += 1;
  return new DeviceBrowser({ ip: `10.30.${networks}.1`, ...options });
}

function setCookies(res: LightMyRequestResponse): string[] {
  const raw = res.headers['set-cookie'];
  return raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
}
const setCookie = (res: LightMyRequestResponse, name: string) => setCookies(res).find((c) => c.startsWith(`${name}=`));
const digest = (value: string) => createHash('sha256').update(value).digest('base64url');
const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;

async function eventsOf(userId: string) {
  return (await db.selectFrom('security_events').selectAll().where('user_id', '=', userId).orderBy('id').execute()).map((e) => ({
    ...e,
    details: json(e.details),
  }));
}

const signedIn = (res: LightMyRequestResponse) => res.statusCode === 303 && setCookie(res, 'sso_session') !== undefined;

t.test('device cookie', async (t) => {
  t.test(
    'the sign-in page gives a new browser a device cookie: 128 random bits or more, HttpOnly, SameSite=Lax, long-lived (issue 5)',
    async (t) => {
      const browser = newBrowser();
      const page = await browser.openLogin(app);
      const cookie = setCookie(page.response, 'sso_device');
      t.ok(cookie, 'set on the sign-in page');
      const value = browser.cookie('sso_device')!;
      t.match(value, /^[A-Za-z0-9_-]+$/, 'base64url');
      t.ok(Buffer.from(value, 'base64url').length >= 16, `at least 128 bits (${value.length} characters)`);
      t.match(cookie, /; HttpOnly/i);
      t.match(cookie, /; SameSite=Lax/i);
      t.match(cookie, new RegExp(`; Max-Age=${DEVICE_COOKIE_TTL}(;|$)`), 'lives DEVICE_COOKIE_TTL_SECONDS');
      t.match(cookie, /; Path=\/sso(;|$)/, "for the issuer's paths on an http issuer");
      t.notMatch(cookie, /; Domain=/i);
      const other = await newBrowser().openLogin(app);
      t.not(setCookie(other.response, 'sso_device'), cookie, 'each browser its own');
    },
  );

  t.test('a browser that has a device cookie keeps it, its lifetime renewed on each visit; a malformed one is replaced', async (t) => {
    const browser = newBrowser();
    await browser.openLogin(app);
    const first = browser.cookie('sso_device');
    const again = await browser.openLogin(app);
    t.match(
      setCookie(again.response, 'sso_device'),
      new RegExp(`^sso_device=${first}; .*Max-Age=${DEVICE_COOKIE_TTL}(;|$)`),
      'the same value, set again for a full lifetime',
    );
    t.equal(browser.cookie('sso_device'), first);
    const others = browser.jar
      .header(again.path)
      .split('; ')
      .filter((c) => !c.startsWith('sso_device='));
    const forged = await app.inject({ method: 'GET', url: again.path, headers: { cookie: [...others, 'sso_device=short'].join('; ') } });
    t.equal(forged.statusCode, 200);
    t.match(setCookie(forged, 'sso_device'), /^sso_device=[A-Za-z0-9_-]{22,}; /, 'a malformed cookie is replaced by a new one');
  });

  t.test(
    'a browser that posts the sign-in form without a device cookie gets one with its session, and it is the enrolled device',
    async (t) => {
      const user = await newUser('nocookie');
      const browser = newBrowser();
      const page = await browser.openLogin(app);
      const cookies = browser.jar
        .header(page.action)
        .split('; ')
        .filter((c) => !c.startsWith('sso_device='))
        .join('; ');
      const res = await app.inject({
        method: 'POST',
        url: page.action,
        remoteAddress: browser.ip,
        headers: { cookie: cookies, 'user-agent': FIREFOX_LINUX, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ csrf: page.csrf, login: user.username, password: user.password }).toString(),
      });
      t.ok(signedIn(res));
      const cookie = setCookie(res, 'sso_device');
      t.ok(cookie, 'a device cookie comes with the session');
      const value = cookie!.split(';')[0]!.split('=')[1]!;
      const device = await db.selectFrom('devices').select('cookie_hash').where('user_id', '=', user.id).executeTakeFirstOrThrow();
      t.equal(device.cookie_hash, digest(value));
    },
  );

  t.test('on an https issuer the device cookie is __Host-sso_device: Secure, Path=/, no Domain (RFC 6265bis 4.1.3.2)', async (t) => {
    const https = await buildTestApp(t, {
      env: riskEnv({ BASE_URL: 'https://sso.example', KEYS_ENCRYPTION_SECRET: 'a-test-secret-of-at-least-32-characters' }),
      notifier: null,
    });
    const browser = newBrowser();
    const page = await browser.openLogin(https.app);
    const cookie = setCookie(page.response, '__Host-sso_device');
    t.ok(cookie, 'set on the sign-in page');
    t.match(cookie, /; Secure/i);
    t.match(cookie, /; Path=\/(;|$)/);
    t.notMatch(cookie, /; Domain=/i);
    t.match(cookie, /; HttpOnly/i);
    t.match(cookie, /; SameSite=Lax/i);
    t.notOk(setCookie(page.response, 'sso_device'), 'no unprefixed cookie');
  });
});

t.test('ALLOW', async (t) => {
  t.test('a first sign-in is allowed: it signs in and enrols the first device without NEW_DEVICE and without a notice', async (t) => {
    const user = await newUser('first');
    const browser = newBrowser();
    const res = await browser.login(app, await browser.openLogin(app), user);
    t.ok(signedIn(res), 'signed in');
    const devices = await db.selectFrom('devices').selectAll().where('user_id', '=', user.id).execute();
    t.equal(devices.length, 1, 'one device');
    t.equal(devices[0]!.label, 'Firefox on Linux', 'labelled');
    t.equal(devices[0]!.cookie_hash, digest(browser.cookie('sso_device')!), 'keyed by the digest of its cookie');
    t.equal(devices[0]!.sign_in_count, 1);
    const allowed = (await eventsOf(user.id)).find((e) => e.type === 'sign_in_allowed');
    t.ok(allowed, 'a sign_in_allowed event');
    t.equal(allowed!.details.action, 'ALLOW');
    t.same(allowed!.details.reasons, [], 'no NEW_DEVICE for the first device');
    const notices = await db.selectFrom('outbox').select('id').where('user_id', '=', user.id).where('kind', '=', 'new-device').execute();
    t.equal(notices.length, 0, 'no new-device notice');
  });

  t.test('a session records the device it was signed in from (sessions.device_id)', async (t) => {
    const user = await newUser('sessdev');
    const browser = newBrowser();
    await browser.login(app, await browser.openLogin(app), user);
    const device = await db.selectFrom('devices').select('id').where('user_id', '=', user.id).executeTakeFirstOrThrow();
    const session = await db.selectFrom('sessions').select('device_id').where('user_id', '=', user.id).executeTakeFirstOrThrow();
    t.equal(session.device_id, device.id);
  });

  t.test('a known device signing in again is counted and seen, not enrolled twice', async (t) => {
    const user = await newUser('again');
    const browser = newBrowser();
    await browser.login(app, await browser.openLogin(app), user);
    testApp.advance(60);
    const res = await browser.login(app, await browser.openLogin(app, { prompt: 'login' }), user);
    t.ok(signedIn(res));
    const devices = await db.selectFrom('devices').selectAll().where('user_id', '=', user.id).execute();
    t.equal(devices.length, 1);
    t.equal(devices[0]!.sign_in_count, 2);
    t.ok(devices[0]!.last_seen_at > devices[0]!.first_seen_at, 'last seen moved on');
    const events = await eventsOf(user.id);
    t.same(events.filter((e) => e.type === 'sign_in_allowed').at(-1)!.details.reasons, ['KNOWN_DEVICE']);
    t.equal(events.filter((e) => e.type === 'new_device').length, 1, 'one new_device event: the enrolment');
  });

  t.test('a later new device records a new_device security event and queues a new-device notice through the outbox', async (t) => {
    const user = await newUser('second');
    const laptop = newBrowser();
    await laptop.login(app, await laptop.openLogin(app), user);
    const phone = newBrowser({ userAgent: CHROME_WINDOWS, headers: CHROME_HINTS, ip: laptop.ip });
    const res = await phone.login(app, await phone.openLogin(app), user);
    t.ok(signedIn(res), 'NEW_DEVICE alone (20) is below the challenge score (30)');
    const events = await eventsOf(user.id);
    const allowed = events.filter((e) => e.type === 'sign_in_allowed').at(-1)!;
    t.same(allowed.details.reasons, ['NEW_DEVICE']);
    const newDevice = events.filter((e) => e.type === 'new_device').at(-1)!;
    const phoneRow = await db
      .selectFrom('devices')
      .select('id')
      .where('user_id', '=', user.id)
      .where('label', '=', 'Chrome on Windows')
      .executeTakeFirstOrThrow();
    t.equal(newDevice.device_id, phoneRow.id, 'the event names the new device');
    const notice = await notifier.next(user.id, 'new-device');
    t.equal(notice.payload.device, 'Chrome on Windows', 'the notice says which device');
  });

  t.test("the sign-in page posted without the script's fields (no JavaScript) is neither penalised nor favoured", async (t) => {
    const scores: unknown[] = [];
    const forms: Array<Record<string, string>> = [
      {},
      { ds_webdriver: '', ds_tz: '', ds_hc: '', ds_screen: '', ds_langs: '' },
      { ds_webdriver: '0', ds_tz: 'Europe/London', ds_hc: '8', ds_screen: '1920x1080', ds_langs: 'en-GB,en' },
    ];
    for (const fields of forms) {
      const user = await newUser('nojs');
      const browser = newBrowser();
      t.ok(signedIn(await browser.login(app, await browser.openLogin(app), user, fields)), `signed in with ${JSON.stringify(fields)}`);
      const allowed = (await eventsOf(user.id)).find((e) => e.type === 'sign_in_allowed')!;
      scores.push({ score: allowed.details.score, reasons: allowed.details.reasons });
    }
    t.same(scores, [
      { score: 0, reasons: [] },
      { score: 0, reasons: [] },
      { score: 0, reasons: [] },
    ]);
  });
});

t.test(
  'a repeated page-script field is refused with an error page, never a 500 (RFC 6749 3.1: "MUST NOT be included more than once")',
  async (t) => {
    const user = await newUser('repeat');
    const browser = newBrowser();
    const page = await browser.openLogin(app);
    const res = await browser.request(app, 'POST', page.action, { csrf: page.csrf, login: user.username, password: user.password });
    t.ok(signedIn(res), 'the form as the page sends it signs in');
    const other = newBrowser();
    const again = await other.openLogin(app);
    const post = (extra: string) =>
      app.inject({
        method: 'POST',
        url: again.action,
        remoteAddress: other.ip,
        headers: {
          cookie: other.jar.header(again.action),
          'content-type': 'application/x-www-form-urlencoded',
          'user-agent': FIREFOX_LINUX,
        },
        payload: `csrf=${again.csrf}&login=${user.username}&password=wrong${extra}`,
      });
    t.equal((await post('&ds_webdriver=0')).statusCode, 401, 'once: an ordinary wrong password');
    const repeated = await post('&ds_webdriver=0&ds_webdriver=1');
    t.equal(repeated.statusCode, 400);
    t.match(repeated.body, /must not be repeated|Sign-in error/);
  },
);

t.test('BLOCK', async (t) => {
  t.test(
    'a sign-in blocked before the password is checked says it was refused, the same for a right and a wrong password (issue 16)',
    async (t) => {
      const user = await newUser('blocked');
      const browser = newBrowser();
      const page = await browser.openLogin(app);
      await insertRiskRule(db, { kind: 'username', value: user.username, effect: 'block', note: null, createdAt: new Date() });
      const wrong = await browser.login(app, page, { username: user.username, password: 'not-the-password' });
      const blocked = await browser.login(app, page, user);
      t.equal(blocked.statusCode, 401);
      t.match(blocked.body, SIGN_IN_REFUSED, 'the page says what happened');
      t.notMatch(blocked.body, WRONG_CREDENTIALS, 'not that the password was wrong');
      // Nothing about the account or the password is revealed: the rule answered before either was looked at.
      t.equal(blocked.statusCode, wrong.statusCode, 'same status whatever the password');
      t.equal(blocked.body, wrong.body, 'same page, byte for byte, whatever the password');
      const headers = (res: LightMyRequestResponse) => Object.fromEntries(Object.entries(res.headers).filter(([name]) => name !== 'date'));
      t.same(headers(blocked), headers(wrong), 'same headers (no cookie set, no Retry-After)');
      t.equal(await db.selectFrom('sessions').select('id_hash').where('user_id', '=', user.id).executeTakeFirst(), undefined, 'no session');
      const events = await db
        .selectFrom('security_events')
        .selectAll()
        .where('type', '=', 'sign_in_blocked')
        .orderBy('created_at', 'desc')
        .limit(2)
        .execute();
      t.equal(events.length, 2);
      for (const event of events) {
        t.equal(event.client_id, CONFIDENTIAL.client_id, 'the blocked event names the client the sign-in was for');
        t.match(event.details, { action: 'BLOCK', reasons: ['RULE_BLOCK'] }, 'and carries the reason');
      }
    },
  );

  t.test('a username rule met through the email refuses the right and a wrong password with one page', async (t) => {
    const user = await newUser('blockedmail');
    const browser = newBrowser();
    const page = await browser.openLogin(app);
    await insertRiskRule(db, { kind: 'username', value: user.username, effect: 'block', note: null, createdAt: new Date() });
    const wrong = await browser.login(app, page, { username: user.email, password: 'not-the-password' });
    const blocked = await browser.login(app, page, { username: user.email, password: user.password });
    t.equal(blocked.statusCode, wrong.statusCode);
    t.equal(blocked.body, wrong.body);
    t.match(blocked.body, SIGN_IN_REFUSED);
  });

  t.test('a blocked sign-in is stored as a sign_in_blocked security event with its reasons', async (t) => {
    const user = await newUser('blockedevt');
    await insertRiskRule(db, { kind: 'username', value: user.username, effect: 'block', note: null, createdAt: new Date() });
    const browser = newBrowser();
    await browser.login(app, await browser.openLogin(app), user);
    const event = await db
      .selectFrom('security_events')
      .selectAll()
      .where('type', '=', 'sign_in_blocked')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    const details = json(event.details);
    t.equal(details.action, 'BLOCK');
    t.same(details.reasons, ['RULE_BLOCK']);
    t.equal(details.device, 'Firefox on Linux');
  });
});

t.test(
  'nothing raw is stored: no address, user agent, login as typed or cookie in devices, attempts, networks, events or challenges (issue 5)',
  async (t) => {
    const agent = `${FIREFOX_LINUX} Distinctive/7.7`;
    const user = await newUser('Pseudonymous');
    const typed = user.email.toUpperCase();
    const v4 = new DeviceBrowser({ ip: '203.0.113.77', userAgent: agent });
    const v6 = new DeviceBrowser({ ip: '2001:db8:77:1::77', userAgent: agent });
    // A wrong password, a sign-in, a challenged sign-in (a new device on a new network) answered, and a blocked one.
    await v4.login(app, await v4.openLogin(app), { username: typed, password: 'typed-wrong' });
    t.ok(signedIn(await v4.login(app, await v4.openLogin(app), { username: typed, password: user.password })));
    const challenged = await v6.login(app, await v6.openLogin(app), user);
    t.equal(challenged.headers.location, `${testApp.config.issuer}/sign-in/verify`);
    t.equal((await v6.answer(app, await notifier.code(user.id))).statusCode, 303);
    await insertRiskRule(db, { kind: 'username', value: user.username, effect: 'block', note: null, createdAt: new Date() });
    await v4.login(app, await v4.openLogin(app, { prompt: 'login' }), user);

    const rows = {
      devices: await db.selectFrom('devices').selectAll().where('user_id', '=', user.id).execute(),
      sign_in_attempts: await db.selectFrom('sign_in_attempts').selectAll().execute(),
      user_networks: await db.selectFrom('user_networks').selectAll().where('user_id', '=', user.id).execute(),
      security_events: await db.selectFrom('security_events').selectAll().execute(),
      second_factor_challenges: await db.selectFrom('second_factor_challenges').selectAll().where('user_id', '=', user.id).execute(),
      sessions: await db.selectFrom('sessions').selectAll().where('user_id', '=', user.id).execute(),
    };
    t.equal(rows.devices.length, 2, 'two devices');
    t.ok(
      rows.security_events.some((e) => e.type === 'sign_in_blocked'),
      'a blocked sign-in among the events',
    );
    const secrets = [
      '203.0.113',
      '2001:db8:77',
      'Distinctive',
      // With their punctuation, which no stored digest (base64url) can hold: "x11" alone turned up in one by chance.
      'Gecko/',
      'rv:128',
      'X11;',
      user.username,
      user.username.toLowerCase(),
      user.email,
      typed,
      v4.cookie('sso_device')!,
      v6.cookie('sso_device')!,
      v4.cookie('sso_session')!,
      v6.cookie('sso_session')!,
    ];
    for (const [table, tableRows] of Object.entries(rows)) {
      const text = JSON.stringify(tableRows);
      for (const secret of secrets) t.notOk(text.toLowerCase().includes(secret.toLowerCase()), `${table}: no "${secret.slice(0, 16)}"`);
    }
    t.same(
      rows.devices.map((d) => d.label).sort(),
      ['Firefox on Linux', 'Firefox on Linux'],
      'the label is all that says what the device is',
    );
  },
);

t.test('two instances on one database agree on a verdict: attempts made through the first count on the second', async (t) => {
  // On PostgreSQL the second instance has a connection pool of its own, as another process would.
  const second = testApp.database.url ? await openDatabase({ url: testApp.database.url, dataDir: 'memory://', poolMax: 4 }) : undefined;
  t.teardown(() => second?.close());
  const other: FastifyInstance = await buildApp(testApp.config, {
    db: second?.db ?? db,
    logger: pino({ level: 'silent' }),
    notifier: null,
  });
  await other.ready();
  t.teardown(() => other.close());

  const user = await newUser('twin');
  const browser = newBrowser();
  const page = await browser.openLogin(app);
  // Four usernames failing from one device on the first instance: RISK_STUFFING_DEVICE_LOGINS.
  for (let i = 0; i < 4; i += 1) {
    t.equal((await browser.login(app, page, { username: `victim-${i}-${user.username}`, password: 'guess' })).statusCode, 401);
  }
  const res = await browser.login(other, page, user);
  t.equal(res.statusCode, 401, 'the second instance blocks the right password');
  const event = await db
    .selectFrom('security_events')
    .selectAll()
    .where('type', '=', 'sign_in_blocked')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  t.ok((json(event.details).reasons as string[]).includes('CREDENTIAL_STUFFING'), 'for the stuffing seen by the first');

  // A device enrolled through the first instance is known to the second (the device secret is shared too).
  const friend = await newUser('twin-known');
  const laptop = newBrowser();
  t.ok(signedIn(await laptop.login(app, await laptop.openLogin(app), friend)));
  const again = await laptop.openLogin(app, { prompt: 'login' });
  t.ok(signedIn(await laptop.login(other, again, friend)), 'signed in through the second');
  const allowed = (await eventsOf(friend.id)).filter((e) => e.type === 'sign_in_allowed').at(-1)!;
  t.same(allowed.details.reasons, ['KNOWN_DEVICE']);
});
