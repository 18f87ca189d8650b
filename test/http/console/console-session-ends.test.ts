// A console session ends with the person's other sessions (issue 38): after a second-factor reset, a password reset
// through its link, "sign out everywhere" (the management API's and the console's) and a password set through the
// API, the old console cookie changes nothing; and the session lists of the API, the console and the account page
// show a live console session, marked as one.
import t, { type Test } from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { adminApiApp, ADMIN_FIXTURES, type AdminApiApp } from '../../helpers/admin-api.js';
import { accountSignIn, enrol, KEYS_SECRET, TestClock } from '../../helpers/account.js';
import { Browser } from '../../helpers/flow.js';
import { startConsoleSession } from '../../../src/domain/console/console-sessions.js';
import { findUserByUsername } from '../../../src/storage/users.js';

const person = (username: string) => ({
  username,
  password: `${username}-password-0123`,
  email: `${username}@example.com`,
  // Reset links go only to a verified address (issue 38, finding 1).
  email_verified: true,
  role: 'admin' as const,
});
const ADA = person('ada');
const BEA = person('bea');
const CY = person('cy');
const DAN = person('dan');
const EVE = person('eve');
const FAY = person('fay');
const AUD = { ...person('aud'), role: 'auditor' as const };

const clock = new TestClock();
const test: AdminApiApp = await adminApiApp(t, {
  env: KEYS_SECRET,
  clock: clock.now,
  notifier: null,
  seed: { ...ADMIN_FIXTURES, users: [...ADMIN_FIXTURES.users, ADA, BEA, CY, DAN, EVE, FAY, AUD] },
});
const { app, db } = test;
const idOf = async (username: string) => (await findUserByUsername(db, username))!.id;

const consoleRequest = (method: 'GET' | 'POST', url: string, cookie: string, form?: Record<string, string>) =>
  app.inject({
    method,
    url,
    headers: { cookie: `sso_console=${cookie}`, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    ...(form ? { payload: new URLSearchParams(form).toString() } : {}),
  });
const csrfOf = (res: LightMyRequestResponse) => /name="csrf" value="([^"]+)"/.exec(res.body)?.[1];
const groupNamed = (name: string) => db.selectFrom('groups').select('id').where('name', '=', name).executeTakeFirst();

/** A console session of `username`, shown to work: it creates a group. Returns its cookie and its forms' token. */
let groups = 0;
async function workingConsoleSession(t: Test, username: string): Promise<{ cookie: string; csrf: string }> {
  groups += 1;
  const cookie = await startConsoleSession({ db, clock: clock.now }, await idOf(username));
  const csrf = csrfOf(await consoleRequest('GET', '/admin', cookie, undefined))!;
  const made = await consoleRequest('POST', '/admin/groups', cookie, { csrf, name: `${username}-before-${groups}` });
  t.equal(made.statusCode, 303, 'before: the console cookie creates a group');
  t.ok(await groupNamed(`${username}-before-${groups}`), 'before: the group exists');
  return { cookie, csrf };
}

/** The cookie no longer opens the console: its POST creates no group, its GET is sent to sign in. */
async function consoleSessionEnded(t: Test, username: string, s: { cookie: string; csrf: string }): Promise<void> {
  const made = await consoleRequest('POST', '/admin/groups', s.cookie, { csrf: s.csrf, name: `${username}-after` });
  t.not(made.statusCode, 200, 'after: the form is not answered as a signed-in person');
  t.equal(made.headers.location, 'http://localhost:3000/admin', 'after: the POST is sent back to the console, to sign in');
  t.notOk(await groupNamed(`${username}-after`), 'after: the old console cookie created no group');
  const page = await consoleRequest('GET', '/admin', s.cookie);
  t.equal(page.statusCode, 303);
  t.match(String(page.headers.location), /\/sso\/authorize\?/, 'after: the console asks to sign in again');
  const rows = await db
    .selectFrom('console_sessions')
    .select('id_hash')
    .where('user_id', '=', await idOf(username))
    .execute();
  t.same(rows, [], 'after: no console session of the person is left');
}

const browserSessionsOf = async (username: string) =>
  Number(
    (
      await db
        .selectFrom('sessions')
        .select(db.fn.countAll().as('n'))
        .where('user_id', '=', await idOf(username))
        .where('revoked_at', 'is', null)
        .executeTakeFirstOrThrow()
    ).n,
  );

t.test("a second-factor reset ends the person's console session and their browser sessions", async (t) => {
  const browser = await accountSignIn(app, new Browser(), ADA);
  await enrol(app, browser, clock.now());
  const s = await workingConsoleSession(t, ADA.username);
  const reset = await test.call(t, 'DELETE', '/users/ada/second-factor');
  t.equal(reset.statusCode, 200);
  t.equal(reset.json().removed, true);
  await consoleSessionEnded(t, ADA.username, s);
  t.equal(await browserSessionsOf(ADA.username), 0, 'the browser sessions made with the lost factor ended too');
});

t.test("a password reset through its link ends the person's console session", async (t) => {
  const s = await workingConsoleSession(t, BEA.username);
  t.equal((await test.call(t, 'POST', '/users/bea/reset-link')).statusCode, 202);
  const mail = await db
    .selectFrom('outbox')
    .select('payload')
    .where('kind', '=', 'password-reset')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  const url = new URL(String((typeof mail.payload === 'string' ? JSON.parse(mail.payload) : mail.payload).url));
  const done = await new Browser().request(app, 'POST', '/sso/account/reset', {
    token: url.searchParams.get('token')!,
    password: 'a brand new password for bea',
    repeat: 'a brand new password for bea',
  });
  t.equal(done.statusCode, 200, done.body.slice(0, 200));
  t.ok(await db.selectFrom('password_resets').select('used_at').where('used_at', 'is not', null).executeTakeFirst(), 'the link was used');
  await consoleSessionEnded(t, BEA.username, s);
});

t.test("DELETE /users/{u}/sessions ends the person's console session, and counts it", async (t) => {
  const s = await workingConsoleSession(t, CY.username);
  const ended = await test.call(t, 'DELETE', '/users/cy/sessions');
  t.equal(ended.statusCode, 200);
  t.equal(ended.json().sessions_ended, 1, 'the console session is one of the sessions ended');
  await consoleSessionEnded(t, CY.username, s);
});

t.test("a password set through the API ends the person's console session and their browser sessions", async (t) => {
  await accountSignIn(app, new Browser(), DAN);
  const s = await workingConsoleSession(t, DAN.username);
  const set = await test.call(t, 'PUT', '/users/dan/password', { body: { password: 'a new password set by the admin' } });
  t.equal(set.statusCode, 200);
  await consoleSessionEnded(t, DAN.username, s);
  t.equal(await browserSessionsOf(DAN.username), 0, 'the browser sessions made with the old password ended too');
});

t.test('the console\'s own "Sign out everywhere" ends the person\'s console session', async (t) => {
  const s = await workingConsoleSession(t, EVE.username);
  const admin = await workingConsoleSession(t, ADA.username);
  const done = await consoleRequest('POST', `/admin/users/${await idOf(EVE.username)}/sessions/revoke`, admin.cookie, { csrf: admin.csrf });
  t.equal(done.statusCode, 303);
  await consoleSessionEnded(t, EVE.username, s);
});

t.test('the session lists of the API, the console and the account page show a live console session, marked as one', async (t) => {
  const browser = await accountSignIn(app, new Browser(), EVE);
  const s = await workingConsoleSession(t, EVE.username);
  const listed = await test.call(t, 'GET', '/users/eve/sessions');
  t.equal(listed.statusCode, 200);
  const items = listed.json().items as Array<{ sid: string; kind: string; last_seen_at: string | null }>;
  t.same(items.map((i) => i.kind).sort(), ['browser', 'console'], 'one browser session, one console session');
  const consoleItem = items.find((i) => i.kind === 'console')!;
  t.match(consoleItem.sid, /^[0-9a-f-]{36}$/, 'named by a public id of its own');
  t.notOk(
    items.some((i) => i.sid.includes(s.cookie)),
    'never by its cookie',
  );
  t.type(consoleItem.last_seen_at, 'string', 'with when it was last used');

  const auditor = await startConsoleSession({ db, clock: clock.now }, await idOf(AUD.username));
  const page = await consoleRequest('GET', `/admin/users/${await idOf(EVE.username)}`, auditor);
  t.equal(page.statusCode, 200);
  t.match(page.body, /<td>Console<\/td>/, "the console's user page marks it");
  t.match(page.body, /<td>Browser<\/td>/);

  const account = await browser.request(app, 'GET', '/sso/account');
  t.equal(account.statusCode, 200);
  t.match(account.body, 'data-console-session=', 'the account page lists it');
  t.match(account.body, 'Admin console');

  await test.call(t, 'DELETE', '/users/eve/sessions');
  const after = (await test.call(t, 'GET', '/users/eve/sessions')).json().items as unknown[];
  t.same(after, [], 'once ended, neither is listed');
});

t.test('an idle or expired console session is not listed', async (t) => {
  const s = await workingConsoleSession(t, CY.username);
  t.ok(s);
  t.equal(((await test.call(t, 'GET', '/users/cy/sessions')).json().items as unknown[]).length, 1);
  clock.advance(31 * 60);
  t.equal(((await test.call(t, 'GET', '/users/cy/sessions')).json().items as unknown[]).length, 0, 'idle past 30 minutes');
});

t.test("the account page ends one of the person's console sessions by its id, and no one else's", async (t) => {
  const browser = await accountSignIn(app, new Browser(), FAY);
  const own = await workingConsoleSession(t, FAY.username);
  const other = await workingConsoleSession(t, CY.username);
  const page = await browser.request(app, 'GET', '/sso/account');
  const sid = /data-console-session="([^"]+)"/.exec(page.body)![1]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
  const [otherSid] = (
    await db
      .selectFrom('console_sessions')
      .select('sid')
      .where('user_id', '=', await idOf(CY.username))
      .execute()
  ).map((r) => r.sid);
  const refused = await browser.request(app, 'POST', `/sso/account/console-sessions/${otherSid}/end`, { csrf });
  t.equal(refused.headers.location, 'http://localhost:3000/sso/account', "another person's session is answered like none");
  t.equal((await consoleRequest('GET', '/admin', other.cookie)).statusCode, 200, 'and it lives on');
  const forged = await browser.request(app, 'POST', `/sso/account/console-sessions/${sid}/end`, { csrf: 'forged' });
  t.not(forged.statusCode, 303, 'a form without the page token ends nothing');
  t.equal((await consoleRequest('GET', '/admin', own.cookie)).statusCode, 200);
  const ended = await browser.request(app, 'POST', `/sso/account/console-sessions/${sid}/end`, { csrf });
  t.equal(ended.headers.location, 'http://localhost:3000/sso/account?done=console-session-ended');
  await consoleSessionEnded(t, FAY.username, own);
  const after = await browser.request(app, 'GET', '/sso/account');
  t.notMatch(after.body, 'data-console-session=', 'no longer listed');
});
