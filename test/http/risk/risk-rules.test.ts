// Admin risk rules at sign-in: an allow rule lets in what would be challenged, a block rule refuses a right
// password exactly like a wrong one; username, network and device rules each match what they name.
import t, { type Test } from 'tap';
import { addRiskRule, parseRiskRule, removeRiskRule } from '../../../src/domain/risk/rules.js';
import type { Verdict } from '../../../src/domain/risk/verdict.js';
import { ALICE, BOB, buildTestApp, CONFIDENTIAL, FIXTURES } from '../../helpers/app.js';
import { CHROME_WINDOWS, signals } from '../../helpers/device-signals.js';
import { authorizePath, Browser, formAction, hiddenField, localPath } from '../../helpers/flow.js';
import { signInAs, signInContext } from '../../helpers/sign-in-context.js';

const CAROL = { username: 'carol', password: 'carol-password-0001', email: 'carol@example.com' };
const DAVE = { username: 'dave', password: 'dave-password-0002' };
const ERIN = { username: 'erin', password: 'erin-password-0003' };

const test = await buildTestApp(t, { seed: { clients: FIXTURES.clients, users: [...FIXTURES.users, CAROL, DAVE, ERIN] } });
const ctx = await signInContext(t, test);

const HOME = '192.0.2.10';
const ELSEWHERE = '198.51.100.7';

/** Adds the rule as the CLI and the seed file do, until the end of `t`. */
async function withRule(t: Test, rule: { kind: string; value: string; effect: string }) {
  const parsed = parseRiskRule(rule);
  if ('problems' in parsed) throw new Error(parsed.problems.join('; '));
  const { row } = await addRiskRule(test.db, parsed.rule, new Date());
  t.teardown(() => removeRiskRule(test.db, row.id));
  return row;
}

/** The user's first device (enrolled without reasons): its cookie and id. */
async function enrol(user: { username: string; password: string }) {
  const first = await signInAs(ctx, user.username, user.password, signals({ ip: HOME }));
  if (first.outcome.kind !== 'signed-in') throw new Error(`enrolment of ${user.username}: ${first.outcome.kind}`);
  return { cookie: first.deviceCookie!, id: first.deviceId! };
}

const lastEvent = () => test.db.selectFrom('security_events').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();

t.test('an allow rule for a network turns a would-be CHALLENGE into ALLOW, keeping the score and reasons', async (t) => {
  await enrol(BOB);
  const newLaptop = signals({ ip: ELSEWHERE, userAgent: CHROME_WINDOWS });
  const before = await signInAs(ctx, BOB.username, BOB.password, newLaptop);
  t.equal(before.outcome.kind, 'challenge', 'without a rule: a new device on a new network is challenged');

  await withRule(t, { kind: 'network', value: '198.51.100.0/24', effect: 'allow' });
  const after = await signInAs(ctx, BOB.username, BOB.password, newLaptop);
  t.equal(after.outcome.kind, 'signed-in');
  const verdict = (after.outcome as { verdict: Verdict }).verdict;
  t.equal(verdict.action, 'ALLOW');
  t.same(verdict.reasons, ['RULE_ALLOW', 'NEW_DEVICE', 'NEW_NETWORK']);
  t.ok(verdict.score >= test.config.risk.challengeScore, 'the score still says what was seen');
});

t.test('a block rule refuses the right password with the very page it shows a wrong one, and records why', async (t) => {
  await withRule(t, { kind: 'username', value: 'Alice', effect: 'block' });
  const attempt = async (password: string) => {
    const browser = new Browser();
    const start = await browser.request(
      test.app,
      'GET',
      authorizePath({
        response_type: 'code',
        client_id: CONFIDENTIAL.client_id,
        redirect_uri: CONFIDENTIAL.redirect_uris[0],
        scope: 'openid',
        state: 's',
      }),
    );
    const page = await browser.request(test.app, 'GET', localPath(String(start.headers.location)));
    const res = await browser.request(test.app, 'POST', formAction(page.body), {
      csrf: hiddenField(page.body, 'csrf'),
      login: ALICE.username,
      password,
    });
    // What differs between two pages anyway: the interaction's id and CSRF token.
    const comparable = res.body
      .replaceAll(hiddenField(page.body, 'csrf'), '')
      .replace(/\/interaction\/[\w-]+\//g, '/interaction/-/')
      .replace(/interaction=[\w-]+/g, 'interaction=-');
    return { res, browser, comparable };
  };
  const right = await attempt(ALICE.password);
  const wrong = await attempt('not-the-password');
  t.equal(right.res.statusCode, 401);
  t.equal(right.res.statusCode, wrong.res.statusCode, 'the same status for a right and a wrong password');
  t.match(right.res.body, 'This sign-in was refused. Try again later, or contact the administrator.');
  t.equal(right.comparable, wrong.comparable, 'the same page, but for its interaction id and CSRF token');
  t.notOk(right.browser.get('sso_session'), 'no session');

  const blocked = await test.db.selectFrom('security_events').selectAll().where('type', '=', 'sign_in_blocked').execute();
  t.equal(blocked.length, 2, 'both attempts were blocked before the password was checked');
  for (const event of blocked) t.match(event.details, { action: 'BLOCK', reasons: ['RULE_BLOCK'] });
});

t.test('a username rule also applies when the user signs in with their email', async (t) => {
  await withRule(t, { kind: 'username', value: 'carol', effect: 'block' });
  const { outcome } = await signInAs(ctx, 'Carol@Example.com', CAROL.password, signals({ ip: HOME }));
  t.equal(outcome.kind, 'wrong-credentials');
  t.match((await lastEvent()).details, { action: 'BLOCK', reasons: ['RULE_BLOCK'] });
});

t.test('a device rule blocks the device it names, by the id the security events show, and no other', async (t) => {
  const laptop = await enrol(DAVE);
  await withRule(t, { kind: 'device', value: laptop.id, effect: 'block' });
  const fromLaptop = await signInAs(ctx, DAVE.username, DAVE.password, signals({ ip: HOME, deviceCookie: laptop.cookie }));
  t.equal(fromLaptop.outcome.kind, 'wrong-credentials');
  const fromPhone = await signInAs(ctx, DAVE.username, DAVE.password, signals({ ip: HOME }));
  t.equal(fromPhone.outcome.kind, 'signed-in', 'another device of the same user is not blocked');
});

t.test('a block rule wins over an allow rule', async (t) => {
  await enrol(ERIN);
  await withRule(t, { kind: 'network', value: '192.0.2.0/24', effect: 'allow' });
  await withRule(t, { kind: 'username', value: 'erin', effect: 'block' });
  const { outcome } = await signInAs(ctx, ERIN.username, ERIN.password, signals({ ip: HOME }));
  t.equal(outcome.kind, 'wrong-credentials');
});

t.test('a network rule given for IPv6 matches addresses inside its block only', async (t) => {
  await withRule(t, { kind: 'network', value: '2001:db8:1::/48', effect: 'block' });
  const inside = await signInAs(ctx, ALICE.username, ALICE.password, signals({ ip: '2001:db8:1:2::5' }));
  t.equal(inside.outcome.kind, 'wrong-credentials');
  const outside = await signInAs(ctx, ALICE.username, ALICE.password, signals({ ip: '2001:db8:2::5' }), { passChallenge: true });
  t.not(outside.outcome.kind, 'wrong-credentials');
});
