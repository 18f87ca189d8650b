// The password form against a real OpenLDAP server (issue 19, user federation): the first sign-in provisions and
// links, later ones refresh; wrong passwords and unknown logins look like local ones; the typed login cannot change
// the filter (RFC 4515 3); a directory that does not answer gives a 503 page and counts against nobody; TLS by
// ldaps:// and by StartTLS (RFC 4511 4.14) with the test CA.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import t, { type Test } from 'tap';
import { loggerOptions } from '../../../src/logger.js';
import { addRiskRule } from '../../../src/domain/risk/rules.js';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { PasswordPolicy } from '../../../src/domain/accounts/password-policy.js';
import { resetLink, setPassword } from '../../../src/domain/admin/user-admin.js';
import { DIRECTORY_PASSWORD_HASH } from '../../../src/domain/directories/directory-sign-in.js';
import { parseSeed, type SeedFile } from '../../../src/domain/admin/seed.js';
import { ALICE, buildTestApp, CONFIDENTIAL, FIXTURES, seedDatabase, type TestApp } from '../../helpers/app.js';
import { accountPage, accountSignIn } from '../../helpers/account.js';
import { issueResetLink } from '../../../src/domain/accounts/password-reset.js';
import { authorizePath, Browser, formAction, hiddenField, localPath, pkcePair } from '../../helpers/flow.js';
import { REFUSED_PORT } from '../../helpers/listening.js';
import {
  ALICE_LDAP,
  BOB_LDAP,
  directorySeed,
  PEOPLE_DN,
  SERVICE_PASSWORD,
  SLAPD_MISSING,
  startLdapServer,
  type LdapServer,
} from '../../helpers/ldap-server.js';

const WRONG = 'The username or password is not correct.';
const UNAVAILABLE = 'The sign-in service is temporarily unavailable.';

interface LoginForm {
  browser: Browser;
  csrf: string;
  action: string;
}

async function loginForm(app: FastifyInstance): Promise<LoginForm> {
  const browser = new Browser();
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
    }),
  );
  const page = await browser.request(app, 'GET', localPath(String(started.headers.location)));
  if (page.statusCode !== 200) throw new Error(`no sign-in page: ${page.statusCode}`);
  return { browser, csrf: hiddenField(page.body, 'csrf'), action: formAction(page.body) };
}

let addresses = 0;

/**
 * A network address of its own, for attempts meant to fail: the risk evaluation's per-network counts (credential
 * stuffing) would otherwise block the sign-ins of later tests from the same address.
 */
const freshAddress = () => {
  addresses += 1;
  return `10.${(addresses >> 8) & 255}.${addresses & 255}.1`;
};

/** One posted sign-in form, in a browser of its own. */
async function attempt(
  app: FastifyInstance,
  login: string,
  password: string,
  remoteAddress = '127.0.0.1',
): Promise<LightMyRequestResponse> {
  const form = await loginForm(app);
  return app.inject({
    method: 'POST',
    url: form.action,
    remoteAddress,
    headers: { cookie: form.browser.header(form.action), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ csrf: form.csrf, login, password }).toString(),
  });
}

const signedIn = (res: LightMyRequestResponse) =>
  res.statusCode === 303 && res.cookies.some((c) => c.name === 'sso_session' && c.value !== '');

function refusedAsWrong(t: Test, res: LightMyRequestResponse, what: string) {
  t.equal(res.statusCode, 401, `${what}: 401, as a wrong local password`, { body: res.body.slice(0, 400) });
  t.ok(res.body.includes(WRONG), `${what}: the page says what a wrong local password gets`);
  t.notOk(signedIn(res), `${what}: not signed in`);
}

const seedWith = (directories: Record<string, unknown>[]): SeedFile => ({ ...FIXTURES, directories }) as unknown as SeedFile;

async function userRow(testApp: TestApp, username: string) {
  return testApp.db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
}

async function linkOf(testApp: TestApp, userId: string) {
  return testApp.db.selectFrom('directory_links').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

if (SLAPD_MISSING) {
  // A skipped test, not a plan of 0: in a test group this file's `t` is the whole process's (test/helpers/test-group.ts).
  t.test('the directory tests against a real slapd', { skip: SLAPD_MISSING }, () => {});
} else {
  // Started at load, so that the test group tears them down when this file's tests have run (test/helpers/test-group.ts).
  const server: LdapServer = await startLdapServer(t);
  const testApp: TestApp = await buildTestApp(t, { seed: seedWith([directorySeed(server)]) });

  t.test('the first sign-in provisions a linked user from the entry (ldaps:// with the test CA)', async (t) => {
    const res = await attempt(testApp.app, ALICE_LDAP.uid, ALICE_LDAP.password);
    t.ok(signedIn(res), 'signed in', { status: res.statusCode, body: res.body.slice(0, 300) });
    const user = await userRow(testApp, ALICE_LDAP.uid);
    t.ok(user, 'a local user was created');
    t.equal(user!.password_hash, DIRECTORY_PASSWORD_HASH, 'with no local password that argon2 could verify');
    t.equal(user!.email, ALICE_LDAP.mail, 'email from mail');
    t.equal(user!.email_verified, true, 'verified, as the directory entry says (email_verified: true)');
    t.same(
      user!.claims,
      { name: ALICE_LDAP.cn, given_name: ALICE_LDAP.givenName, family_name: ALICE_LDAP.sn, groups: ['admins', 'staff'] },
      'OIDC Core 5.1 claims and the groups of the group search',
    );
    const link = await linkOf(testApp, user!.id);
    t.equal(link?.directory_id, 'corp');
    t.match(link?.external_id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'linked by entryUUID (RFC 4530)');
    t.equal(link?.dn, ALICE_LDAP.dn);
  });

  t.test('a later sign-in updates the mapped attributes and keeps the one user', async (t) => {
    await server.modify(ALICE_LDAP.dn, { cn: ['Alice Renamed'], mail: ['alice.renamed@example.test'] });
    const before = await userRow(testApp, ALICE_LDAP.uid);
    const res = await attempt(testApp.app, ALICE_LDAP.uid, ALICE_LDAP.password);
    t.ok(signedIn(res), 'signed in');
    const after = await userRow(testApp, ALICE_LDAP.uid);
    t.equal(after!.id, before!.id, 'the same user');
    t.equal((after!.claims as { name?: string }).name, 'Alice Renamed', 'name refreshed');
    t.equal(after!.email, 'alice.renamed@example.test', 'email refreshed');
    const link = await linkOf(testApp, after!.id);
    t.ok(link!.last_synced_at.getTime() >= before!.updated_at.getTime(), 'link synced again');
    const count = await testApp.db
      .selectFrom('directory_links')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    t.equal(Number(count!.n), 1, 'one link');
  });

  t.test('the user signs in with the email address too, as the directory user they are', async (t) => {
    const res = await attempt(testApp.app, 'alice.renamed@example.test', ALICE_LDAP.password);
    t.ok(signedIn(res), 'signed in by email (the local user found by address, checked by the directory)');
    const before = await userRow(testApp, ALICE_LDAP.uid);
    t.ok(signedIn(await attempt(testApp.app, ALICE_LDAP.uid, ALICE_LDAP.password)), 'and again, the entry unchanged');
    const after = await userRow(testApp, ALICE_LDAP.uid);
    t.equal(after!.updated_at.getTime(), before!.updated_at.getTime(), 'an unchanged entry leaves updated_at (OIDC Core 5.1) alone');
  });

  t.test('a renamed and moved entry still signs its user in: it is found again by entryUUID (RFC 4530)', async (t) => {
    const moved = `uid=alice-moved,ou=moved,${PEOPLE_DN}`;
    await server.move(ALICE_LDAP.dn, moved);
    t.teardown(() => server.move(moved, ALICE_LDAP.dn));
    const res = await attempt(testApp.app, ALICE_LDAP.uid, ALICE_LDAP.password);
    t.ok(signedIn(res), 'signed in with the local username, though no entry has uid=alice-ldap any more');
    const user = await userRow(testApp, ALICE_LDAP.uid);
    t.equal((await linkOf(testApp, user!.id))?.dn, moved, 'the link follows the entry to its new DN');
    const count = await testApp.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('username', '=', 'alice-moved')
      .executeTakeFirst();
    t.equal(Number(count!.n), 0, 'no second user for the new uid');
  });

  t.test('a wrong password and an unknown login get what a wrong local password gets', async (t) => {
    const local = await attempt(testApp.app, ALICE.username, 'not-alice-password', freshAddress());
    refusedAsWrong(t, local, 'wrong local password');
    refusedAsWrong(
      t,
      await attempt(testApp.app, ALICE_LDAP.uid, 'not-the-directory-password', freshAddress()),
      'wrong password of a linked user',
    );
    refusedAsWrong(
      t,
      await attempt(testApp.app, BOB_LDAP.uid, 'not-the-directory-password', freshAddress()),
      'wrong password of an entry not yet provisioned',
    );
    refusedAsWrong(t, await attempt(testApp.app, 'nobody-anywhere', 'some-password-123', freshAddress()), 'a login no one has');
    t.notOk(await userRow(testApp, BOB_LDAP.uid), 'a refused entry is not provisioned');
    t.notOk(await userRow(testApp, 'nobody-anywhere'), 'nor an unknown login');
  });

  t.test('a typed login cannot change the search filter (RFC 4515 3: escaped)', async (t) => {
    for (const login of ['*', 'alice-ldap)(uid=*', '*)(|(uid=*', 'alice-ldap\\', '(bob-ldap)', 'bob-ldap*']) {
      refusedAsWrong(t, await attempt(testApp.app, login, BOB_LDAP.password, freshAddress()), JSON.stringify(login));
    }
    // NUL never reaches a filter: the form parser refuses it first (escaped all the same, test/unit/directories).
    const nul = await attempt(testApp.app, 'bob-ldap\u0000', BOB_LDAP.password, freshAddress());
    t.equal(nul.statusCode, 400, 'a login with NUL is a bad request');
    t.notOk(signedIn(nul));
    t.notOk(await userRow(testApp, BOB_LDAP.uid), 'no entry matched');
  });

  t.test('StartTLS on ldap:// with the test CA; a certificate not trusted is a 503, not a wrong password', async (t) => {
    const app = await buildTestApp(t, {
      seed: seedWith([directorySeed(server, { url: server.ldapUrl, start_tls: true })]),
    });
    t.ok(signedIn(await attempt(app.app, BOB_LDAP.uid, BOB_LDAP.password)), 'signed in over StartTLS');
    const link = await app.db.selectFrom('directory_links').selectAll().executeTakeFirst();
    t.equal(link?.dn, BOB_LDAP.dn, 'provisioned and linked');

    const untrusted = await buildTestApp(t, {
      seed: seedWith([directorySeed(server, { id: 'untrusted', ca_certificate: undefined })]),
    });
    const res = await attempt(untrusted.app, BOB_LDAP.uid, BOB_LDAP.password);
    t.equal(res.statusCode, 503, 'RFC 4513 3.1.3: the server certificate is checked; unverified means unavailable');
    t.ok(res.body.includes(UNAVAILABLE));
  });

  t.test('plain ldap:// works only with allow_plain_ldap', async (t) => {
    const app = await buildTestApp(t, {
      seed: seedWith([directorySeed(server, { url: server.ldapUrl, allow_plain_ldap: true })]),
    });
    t.ok(signedIn(await attempt(app.app, BOB_LDAP.uid, BOB_LDAP.password)), 'signed in over plain ldap:// when allowed');
    t.throws(
      () => parseSeed(seedWith([directorySeed(server, { id: 'plain', url: server.ldapUrl })])),
      /plain ldap:\/\/ sends passwords in the clear/,
      'the seed refuses plain ldap:// without the flag',
    );
  });

  t.test('a directory that does not answer: 503, the temporary page, and no failure counted', async (t) => {
    const app = await buildTestApp(t, {
      seed: seedWith([directorySeed(server, { url: `ldap://127.0.0.1:${REFUSED_PORT}`, allow_plain_ldap: true, connect_timeout_ms: 500 })]),
    });
    for (let i = 0; i < 5; i += 1) {
      const res = await attempt(app.app, BOB_LDAP.uid, BOB_LDAP.password);
      t.equal(res.statusCode, 503, `attempt ${i + 1}: 503 (RFC 9110 15.6.4), never a 500`);
      t.ok(res.body.includes(UNAVAILABLE), 'the page says the sign-in service is temporarily unavailable');
      t.notOk(res.body.includes(WRONG), 'never "wrong password"');
      t.ok(res.headers['retry-after'], 'Retry-After');
    }
    const counted = await app.db.selectFrom('sign_in_attempts').select(['excused', 'succeeded']).execute();
    t.ok(
      counted.every((a) => a.excused),
      'the attempt log counts none of them as a failure',
    );
    // The directory is back: five unchecked attempts did not lock the account (three are free).
    await seedDatabase(app.db, seedWith([directorySeed(server)]));
    t.ok(signedIn(await attempt(app.app, BOB_LDAP.uid, BOB_LDAP.password)), 'signs in at once when the directory answers again');
  });

  t.test('a disabled or removed directory no longer signs its users in', async (t) => {
    await seedDatabase(testApp.db, seedWith([directorySeed(server, { enabled: false })]));
    refusedAsWrong(
      t,
      await attempt(testApp.app, ALICE_LDAP.uid, ALICE_LDAP.password, freshAddress()),
      'linked user of a disabled directory',
    );
    refusedAsWrong(t, await attempt(testApp.app, BOB_LDAP.uid, BOB_LDAP.password, freshAddress()), 'entry of a disabled directory');
    await seedDatabase(testApp.db, seedWith([directorySeed(server)]));
    t.ok(signedIn(await attempt(testApp.app, ALICE_LDAP.uid, ALICE_LDAP.password)), 'enabled again: signs in');
  });

  t.test('the directory manages the password: the account page and a reset link refuse to set one', async (t) => {
    const browser = await accountSignIn(testApp.app, new Browser(), { username: ALICE_LDAP.uid, password: ALICE_LDAP.password });
    const page = await browser.request(testApp.app, 'GET', '/sso/account/password');
    t.equal(page.statusCode, 200);
    t.ok(page.body.includes('Your password is managed by your directory'), 'the page says so, instead of a form');
    t.notOk(page.body.includes('type="password"'), 'no password form');
    const { csrf } = await accountPage(testApp.app, browser);
    const posted = await browser.request(testApp.app, 'POST', '/sso/account/password', {
      csrf,
      current: ALICE_LDAP.password,
      password: 'a-brand-new-local-password',
      repeat: 'a-brand-new-local-password',
    });
    t.equal(posted.statusCode, 409, 'a posted change is refused');
    t.ok(posted.body.includes('kept in your organisation&#39;s directory') || posted.body.includes("organisation's directory"));

    const user = (await userRow(testApp, ALICE_LDAP.uid))!;
    const link = await issueResetLink({ db: testApp.db, clock: () => new Date(), config: testApp.config }, user.id, false);
    const token = new URL(link!.url).searchParams.get('token')!;
    const opened = await testApp.app.inject({ method: 'GET', url: `/sso/account/reset?token=${token}` });
    t.equal(opened.statusCode, 409, 'a reset link opens on the refusal');
    t.ok(opened.body.includes('Your password is managed by your directory'));
    const reset = await testApp.app.inject({
      method: 'POST',
      url: '/sso/account/reset',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ token, password: 'a-brand-new-local-password', repeat: 'a-brand-new-local-password' }).toString(),
    });
    t.equal(reset.statusCode, 409, 'and a posted reset is refused');
    t.equal((await userRow(testApp, ALICE_LDAP.uid))!.password_hash, DIRECTORY_PASSWORD_HASH, 'no local password was set');
    t.notOk(signedIn(await attempt(testApp.app, ALICE_LDAP.uid, 'a-brand-new-local-password', freshAddress())), 'nor does one sign in');

    const admin = {
      config: testApp.config,
      db: testApp.db,
      clock: () => new Date(),
      log: pino({ level: 'silent' }),
      passwords: new PasswordHasher(testApp.config.argon2),
      passwordPolicy: new PasswordPolicy(),
    };
    await t.rejects(
      setPassword(admin, ALICE_LDAP.uid, 'a-brand-new-local-password'),
      /kept by their directory/,
      'sso-admin users set-password',
    );
    await t.rejects(resetLink(admin, ALICE_LDAP.uid, false), /kept by their directory/, 'sso-admin users reset-link');
  });

  t.test('throttling, the risk rules and the log apply as to local passwords', async (t) => {
    const raw: string[] = [];
    const logger = pino(loggerOptions('info'), { write: (line: string) => void raw.push(line) });
    const app = await buildTestApp(t, { logger, env: { SIGN_IN_ACCOUNT_FREE_ATTEMPTS: '3' }, seed: seedWith([directorySeed(server)]) });

    // RFC 6749 10.10: the account counter comes before the directory; three free attempts (as set), then a lock.
    const codes: number[] = [];
    for (let i = 0; i < 4; i += 1) codes.push((await attempt(app.app, BOB_LDAP.uid, `wrong-${i}-password`, freshAddress())).statusCode);
    t.same(codes, [401, 401, 401, 429], 'the fourth wrong directory password is throttled like a local one');

    // An admin rule blocking the username refuses before the password is checked, and nothing is provisioned.
    await addRiskRule(app.db, { kind: 'username', value: ALICE_LDAP.uid, effect: 'block', note: null }, new Date());
    const blocked = await attempt(app.app, ALICE_LDAP.uid, ALICE_LDAP.password, freshAddress());
    t.equal(blocked.statusCode, 401);
    t.notOk(signedIn(blocked), 'a BLOCK verdict refuses a right directory password');
    t.notOk(await userRow(app, ALICE_LDAP.uid), 'and provisions no one');

    const down = await buildTestApp(t, {
      logger,
      seed: seedWith([directorySeed(server, { url: `ldaps://127.0.0.1:${REFUSED_PORT}` })]),
    });
    t.equal((await attempt(down.app, BOB_LDAP.uid, BOB_LDAP.password, freshAddress())).statusCode, 503);
    const lines = raw.map((line) => JSON.parse(line) as Record<string, unknown>);
    const unavailable = lines.filter((l) => l.event === 'directory_unavailable');
    t.equal(unavailable.length, 1, 'the unreachable directory is logged');
    t.match(unavailable[0], { directory: 'corp', error: 'Error:ECONNREFUSED' }, 'by its id and the error class');
    const all = raw.join('\n');
    for (const secret of [BOB_LDAP.password, ALICE_LDAP.password, SERVICE_PASSWORD, 'wrong-0-password'])
      t.notOk(all.includes(secret), 'no password in any log line');
    t.notOk(all.includes('uid=bob-ldap'), 'nor a DN or filter of the directory');
  });
}
