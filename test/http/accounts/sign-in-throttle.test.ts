// Sign-in brute-force protection (RFC 6749 10.10): per-account and per-address counters in the
// database, growing locks, 429 pages, no argon2 work for a locked attempt, and a bounded argon2 queue.
import { createMetrics } from '../../../src/metrics.js';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import t, { type Test } from 'tap';
import { buildApp } from '../../../src/app.js';
import type { ProviderContext } from '../../../src/domain/context.js';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { signInWithPassword } from '../../../src/domain/accounts/password-sign-in.js';
import { applySeed } from '../../../src/domain/admin/seed.js';
import { buildTestApp, CONFIDENTIAL, type TestApp } from '../../helpers/app.js';
import { signals } from '../../helpers/device-signals.js';
import { authorizePath, Browser, formAction, hiddenField, localPath, pkcePair, tokenRequest } from '../../helpers/flow.js';

const LOCKED = /Too many attempts\. Try again in (\d+) seconds?\./;

interface LoginForm {
  browser: Browser;
  csrf: string;
  action: string;
}

/** A sign-in page of a new interaction, opened in a browser of its own (or in `browser`, with its cookies). */
async function loginForm(app: FastifyInstance, browser = new Browser(), extra: Record<string, string> = {}): Promise<LoginForm> {
  const started = await browser.request(
    app,
    'GET',
    authorizePath({
      response_type: 'code',
      client_id: CONFIDENTIAL.client_id,
      redirect_uri: CONFIDENTIAL.redirect_uris[0],
      scope: 'openid',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      ...extra,
    }),
  );
  const page = await browser.request(app, 'GET', localPath(String(started.headers.location)));
  if (page.statusCode !== 200) throw new Error(`no sign-in page: ${page.statusCode}`);
  return { browser, csrf: hiddenField(page.body, 'csrf'), action: formAction(page.body) };
}

/** Posts the sign-in form, as sent from `remoteAddress`. */
function attempt(app: FastifyInstance, form: LoginForm, login: string, password: string, remoteAddress = '127.0.0.1') {
  return app.inject({
    method: 'POST',
    url: form.action,
    remoteAddress,
    headers: { cookie: form.browser.header(form.action), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ csrf: form.csrf, login, password }).toString(),
  });
}

/** The lock the page announces, in seconds; fails the test when the page is not a 429 lock page. */
function lockedFor(t: Test, res: LightMyRequestResponse): number {
  t.equal(res.statusCode, 429, '429 Too Many Requests', { body: res.body.slice(0, 300) });
  const seconds = Number(LOCKED.exec(res.body)?.[1]);
  t.ok(seconds > 0, 'the page says how long to wait');
  t.equal(res.headers['retry-after'], String(seconds), 'Retry-After says the same (RFC 6585 4)');
  return seconds;
}

function signedIn(res: LightMyRequestResponse): boolean {
  return res.statusCode === 303 && res.cookies.some((c) => c.name === 'sso_session' && c.value !== '');
}

async function newUser(testApp: TestApp, name: string) {
  const user = { username: `${name}-${randomBytes(3).toString('hex')}`, password: `pw-${randomBytes(6).toString('hex')}` };
  await applySeed(testApp.db, new PasswordHasher(testApp.config.argon2), { clients: [], users: [user] });
  return user;
}

t.test('per-account throttle', async (t) => {
  // Three free attempts, then 2 s, 4 s, 8 s (the cap); no per-address counter, so tests do not add up.
  // One clock for this app and a second instance, moved by advance().
  let offsetMs = 0;
  const clock = () => new Date(Date.now() + offsetMs);
  const testApp = await buildTestApp(t, {
    clock,
    // The throttle alone: failures on the account, and many logins failing from one machine (every test browser is
    // the same fingerprint on 127.0.0.1), would otherwise make the risk evaluation ask for a second factor or block.
    env: {
      SIGN_IN_ACCOUNT_FREE_ATTEMPTS: '3',
      SIGN_IN_LOCK_BASE_SECONDS: '2',
      SIGN_IN_LOCK_MAX_SECONDS: '8',
      SIGN_IN_IP_FREE_ATTEMPTS: '0',
      RISK_WEIGHTS: 'FAILED_ATTEMPTS_USER=0,CREDENTIAL_STUFFING=0',
    },
  });
  const { app } = testApp;
  const advance = (seconds: number) => {
    offsetMs += seconds * 1000;
  };

  t.test(
    'after the free attempts the account is locked: 429 and "Too many attempts. Try again in N seconds." on the sign-in page (RFC 6749 10.10, RFC 6585 4)',
    async (t) => {
      const user = await newUser(testApp, 'lock');
      const form = await loginForm(app);
      for (let i = 1; i <= 3; i += 1) t.equal((await attempt(app, form, user.username, 'wrong')).statusCode, 401, `failure ${i} is free`);
      const res = await attempt(app, form, user.username, user.password);
      t.equal(lockedFor(t, res), 2, 'locked for SIGN_IN_LOCK_BASE_SECONDS');
      t.match(res.body, /Too many attempts\. Try again in 2 seconds\./);
      t.match(res.body, /type="password"/, 'the form is shown again');
      t.match(res.body, new RegExp(`value="${user.username}"`), 'with the login filled in');
      t.equal(res.headers['content-security-policy']?.toString().includes("frame-ancestors 'none'"), true, 'a page with the page headers');
      t.notOk(signedIn(res), 'even the right password does not sign in while locked');
    },
  );

  t.test('the lock doubles with each further failure and stops at SIGN_IN_LOCK_MAX_SECONDS (RFC 6749 10.10)', async (t) => {
    const user = await newUser(testApp, 'double');
    const form = await loginForm(app);
    for (let i = 0; i < 3; i += 1) await attempt(app, form, user.username, 'wrong');
    const seen: number[] = [lockedFor(t, await attempt(app, form, user.username, 'wrong'))];
    for (let i = 0; i < 3; i += 1) {
      advance(seen.at(-1)!);
      t.equal((await attempt(app, form, user.username, 'wrong')).statusCode, 401, 'once the lock ends, the attempt is checked');
      seen.push(lockedFor(t, await attempt(app, form, user.username, 'wrong')));
    }
    t.same(seen, [2, 4, 8, 8]);
  });

  t.test('once the lock has run out the right password signs in (RFC 6749 10.10)', async (t) => {
    const user = await newUser(testApp, 'wait');
    const form = await loginForm(app);
    for (let i = 0; i < 3; i += 1) await attempt(app, form, user.username, 'wrong');
    advance(lockedFor(t, await attempt(app, form, user.username, user.password)));
    t.ok(signedIn(await attempt(app, form, user.username, user.password)));
  });

  t.test('a successful sign-in resets the account counter (RFC 6749 10.10)', async (t) => {
    const user = await newUser(testApp, 'reset');
    const form = await loginForm(app);
    for (let i = 0; i < 2; i += 1) await attempt(app, form, user.username, 'wrong');
    t.ok(signedIn(await attempt(app, form, user.username, user.password)));
    // Further failures from browsers the user never signed in on (their own device has a counter of its own).
    const other = await loginForm(app);
    for (let i = 1; i <= 3; i += 1)
      t.equal((await attempt(app, other, user.username, 'wrong')).statusCode, 401, `failure ${i} after the reset is free`);
    lockedFor(t, await attempt(app, other, user.username, 'wrong'));
  });

  t.test('an unknown login is counted and locked exactly like a known one, so the lock reveals no account (RFC 6749 10.10)', async (t) => {
    const known = await newUser(testApp, 'known');
    const unknown = `nobody-${randomBytes(3).toString('hex')}`;
    const run = async (login: string) => {
      const form = await loginForm(app);
      const responses: LightMyRequestResponse[] = [];
      for (let i = 0; i < 5; i += 1) responses.push(await attempt(app, form, login, 'wrong'));
      return responses;
    };
    const [a, b] = [await run(known.username), await run(unknown)];
    t.same(
      a.map((r) => r.statusCode),
      [401, 401, 401, 429, 429],
    );
    t.same(
      b.map((r) => r.statusCode),
      a.map((r) => r.statusCode),
      'the same statuses',
    );
    const neutral = (r: LightMyRequestResponse, login: string) =>
      r.body
        .replaceAll(`value="${login}"`, '')
        .replace(/name="csrf" value="[^"]*"/g, '')
        .replace(/\/interaction\/[^/"]+/g, '')
        .replace(/interaction=[\w-]+/g, '');
    for (let i = 0; i < 5; i += 1) t.equal(neutral(a[i]!, known.username), neutral(b[i]!, unknown), `the same page for attempt ${i + 1}`);
  });

  t.test('the account counter is keyed by the login as typed, trimmed and lower-cased (RFC 6749 10.10)', async (t) => {
    const user = await newUser(testApp, 'case');
    const form = await loginForm(app);
    for (const login of [`  ${user.username.toUpperCase()} `, user.username.toUpperCase(), ` ${user.username}`]) {
      t.equal((await attempt(app, form, login, 'wrong')).statusCode, 401);
    }
    lockedFor(t, await attempt(app, form, user.username, user.password));
  });

  t.test(
    'simultaneous attempts cannot slip past the lock together: of ten at once only the free three are checked (RFC 6749 10.10)',
    async (t) => {
      const user = await newUser(testApp, 'burst');
      const form = await loginForm(app);
      const results = await Promise.all(Array.from({ length: 10 }, () => attempt(app, form, user.username, 'wrong')));
      t.same(results.map((r) => r.statusCode).sort(), [401, 401, 401, 429, 429, 429, 429, 429, 429, 429]);
    },
  );

  t.test('an empty password is refused without being counted (nothing to guess with)', async (t) => {
    const user = await newUser(testApp, 'empty');
    const form = await loginForm(app);
    for (let i = 0; i < 5; i += 1) t.equal((await attempt(app, form, user.username, '')).statusCode, 401);
    t.ok(signedIn(await attempt(app, form, user.username, user.password)), 'not locked');
  });

  t.test(
    'the counter lives in the database: a second instance on the same database sees the lock, and the reset (RFC 6749 10.10)',
    async (t) => {
      const second = await buildApp(testApp.config, { db: testApp.db, logger: pino({ level: 'silent' }), clock });
      t.teardown(() => second.close());
      const user = await newUser(testApp, 'shared');
      const form = await loginForm(app);
      for (let i = 0; i < 3; i += 1)
        t.equal((await attempt(app, form, user.username, 'wrong')).statusCode, 401, 'a failure on the first instance');
      lockedFor(t, await attempt(second, form, user.username, user.password));

      const other = await newUser(testApp, 'shared-reset');
      for (let i = 0; i < 2; i += 1) await attempt(app, form, other.username, 'wrong');
      t.ok(signedIn(await attempt(second, form, other.username, other.password)), 'signed in on the second instance');
      for (let i = 0; i < 3; i += 1)
        t.equal((await attempt(app, form, other.username, 'wrong')).statusCode, 401, 'the first instance sees the reset');
    },
  );

  t.test('a locked attempt costs no argon2 work, and a known and an unknown login cost the same (RFC 6749 10.10)', async (t) => {
    class CountingHasher extends PasswordHasher {
      verifications = 0;
      override async verify(hash: string, plain: string): Promise<boolean> {
        this.verifications += 1;
        return super.verify(hash, plain);
      }
    }
    const passwords = new CountingHasher(testApp.config.argon2);
    const ctx = {
      config: testApp.config,
      db: testApp.db,
      clock,
      passwords,
      deviceSecret: Buffer.alloc(32),
      log: pino({ level: 'silent' }),
      metrics: createMetrics(),
    } as unknown as ProviderContext;
    const user = await newUser(testApp, 'cost');
    const unknown = `ghost-${randomBytes(3).toString('hex')}`;
    for (const login of [user.username, unknown]) {
      passwords.verifications = 0;
      const outcomes = [];
      for (let i = 0; i < 6; i += 1) outcomes.push((await signInWithPassword(ctx, login, 'wrong', signals({ ip: '192.0.2.1' }))).kind);
      t.same(outcomes, ['wrong-credentials', 'wrong-credentials', 'wrong-credentials', 'throttled', 'throttled', 'throttled']);
      t.equal(
        passwords.verifications,
        3,
        `${login === unknown ? 'unknown' : 'known'} login: one verification per checked attempt, none when locked`,
      );
    }
  });
});

t.test('per-address throttle', async (t) => {
  // Four free attempts per address; the account counters are out of reach.
  const testApp = await buildTestApp(t, {
    env: {
      SIGN_IN_IP_FREE_ATTEMPTS: '4',
      SIGN_IN_ACCOUNT_FREE_ATTEMPTS: '100',
      SIGN_IN_LOCK_BASE_SECONDS: '2',
      SIGN_IN_LOCK_MAX_SECONDS: '8',
    },
  });
  const { app } = testApp;

  t.test(
    'failures spread over many logins from one address lock that address; another address is not affected (RFC 6749 10.10)',
    async (t) => {
      const user = await newUser(testApp, 'spray');
      const form = await loginForm(app);
      const attacker = '203.0.113.7';
      for (let i = 0; i < 4; i += 1) t.equal((await attempt(app, form, `guess-${i}`, 'wrong', attacker)).statusCode, 401);
      lockedFor(t, await attempt(app, form, user.username, user.password, attacker));
      t.ok(signedIn(await attempt(app, form, user.username, user.password, '198.51.100.9')), 'another address signs in');
    },
  );

  t.test('the addresses of one IPv6 /64 share their counter (RFC 6749 10.10)', async (t) => {
    const form = await loginForm(app);
    for (let i = 0; i < 4; i += 1) await attempt(app, form, `v6-${i}`, 'wrong', `2001:db8:7:7::${i + 1}`);
    lockedFor(t, await attempt(app, form, 'v6-next', 'wrong', '2001:db8:7:7:abcd::99'));
    t.equal((await attempt(app, form, 'v6-next', 'wrong', '2001:db8:7:8::1')).statusCode, 401, 'the next /64 is not locked');
  });

  t.test('a successful sign-in does not count against its address (RFC 6749 10.10)', async (t) => {
    const user = await newUser(testApp, 'office');
    const form = await loginForm(app);
    const office = '192.0.2.44';
    for (let i = 0; i < 3; i += 1) t.equal((await attempt(app, form, `typo-${i}`, 'wrong', office)).statusCode, 401);
    for (let i = 0; i < 3; i += 1)
      t.ok(signedIn(await attempt(app, form, user.username, user.password, office)), `sign-in ${i + 1} from the address`);
    t.equal((await attempt(app, form, 'typo-3', 'wrong', office)).statusCode, 401, 'the fourth failure is still free');
    lockedFor(t, await attempt(app, form, 'typo-4', 'wrong', office));
  });
});

t.test('SIGN_IN_IP_FREE_ATTEMPTS=0 keeps no per-address counter (behind a proxy every client has its address)', async (t) => {
  const { app } = await buildTestApp(t, { env: { SIGN_IN_IP_FREE_ATTEMPTS: '0' } });
  const form = await loginForm(app);
  for (let i = 0; i < 60; i += 1) {
    const res = await attempt(app, form, `someone-${i}`, 'wrong');
    if (res.statusCode !== 401) t.fail(`attempt ${i + 1}: HTTP ${res.statusCode}`);
  }
  t.pass('sixty failures for sixty logins from one address are all checked');
});

t.test('bounded argon2 work', async (t) => {
  const testApp = await buildTestApp(t, {
    env: { ARGON2_MAX_CONCURRENT: '1', ARGON2_MAX_QUEUED: '0', SIGN_IN_IP_FREE_ATTEMPTS: '0', CLIENT_AUTH_CACHE_SECONDS: '0' },
  });
  const { app } = testApp;

  t.test('beyond the argon2 queue a sign-in answers 503 on the sign-in page with Retry-After (RFC 9110 15.6.4)', async (t) => {
    const form = await loginForm(app);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => attempt(app, form, `flood-${i}`, 'wrong')));
    const busy = results.filter((r) => r.statusCode === 503);
    t.ok(busy.length >= 1, `some attempts are turned away (${busy.length} of 8)`);
    t.ok(
      results.some((r) => r.statusCode === 401),
      'one is checked',
    );
    t.same(new Set(results.map((r) => r.statusCode)), new Set([401, 503]), 'nothing else');
    for (const res of busy) {
      t.equal(res.headers['retry-after'], '1');
      t.match(res.headers['content-type'], /^text\/html/);
      t.match(res.body, /The service is busy\. Try again in a few seconds\./);
      t.match(res.body, /type="password"/, 'the form is shown again');
    }
  });

  t.test('beyond the argon2 queue the token endpoint answers 503 temporarily_unavailable with Retry-After (RFC 6749 5.2)', async (t) => {
    const form = { grant_type: 'authorization_code', code: 'no-such-code', redirect_uri: CONFIDENTIAL.redirect_uris[0] };
    const results = await Promise.all(Array.from({ length: 8 }, () => tokenRequest(app, form)));
    const busy = results.filter((r) => r.statusCode === 503);
    t.ok(busy.length >= 1, `some requests are turned away (${busy.length} of 8)`);
    for (const res of busy) {
      t.same(res.json(), { error: 'temporarily_unavailable', error_description: 'the service is busy, try again shortly' });
      t.equal(res.headers['retry-after'], '1');
    }
    t.ok(
      results.every((r) => r.statusCode === 503 || r.statusCode === 400),
      'the others get their answer (the code is unknown)',
    );
  });
});

t.test('issue 16 finding 6: a locked account does not lock out its owner on a device of theirs; the address counter stays', async (t) => {
  const testApp = await buildTestApp(t, {
    env: {
      SIGN_IN_ACCOUNT_FREE_ATTEMPTS: '3',
      SIGN_IN_IP_FREE_ATTEMPTS: '6',
      RISK_WEIGHTS: 'FAILED_ATTEMPTS_USER=0,CREDENTIAL_STUFFING=0,NEW_DEVICE=0,NEW_NETWORK=0,AUTOMATION=0',
    },
  });
  const { app } = testApp;
  const user = await newUser(testApp, 'owner');
  // The owner signs in once on their laptop: the provider records the device and its cookie.
  const laptop = await loginForm(app);
  const first = await attempt(app, laptop, user.username, user.password);
  t.ok(signedIn(first), 'the first sign-in');
  laptop.browser.store(first);

  // Someone else, elsewhere, keeps the account locked with wrong passwords.
  const ATTACKER = '192.0.2.66';
  for (let i = 0; i < 4; i += 1) await attempt(app, await loginForm(app), user.username, 'wrong', ATTACKER);
  lockedFor(t, await attempt(app, await loginForm(app), user.username, user.password, ATTACKER));
  lockedFor(t, await attempt(app, await loginForm(app), user.username, user.password)); // an unknown browser is still refused

  // RFC 6749 10.10: the lock stops guessing, not the owner: their known device passes the account counter.
  const again = await attempt(app, await loginForm(app, laptop.browser, { prompt: 'login' }), user.username, user.password);
  t.ok(signedIn(again), 'the owner signs in from their known device while the account is locked');

  // The per-address counter still holds for that device: its own failures lock it, like anyone's.
  for (let i = 0; i < 6; i += 1)
    await attempt(app, await loginForm(app, laptop.browser, { prompt: 'login' }), user.username, 'wrong', '198.51.100.9');
  lockedFor(t, await attempt(app, await loginForm(app, laptop.browser, { prompt: 'login' }), user.username, user.password, '198.51.100.9'));
});
