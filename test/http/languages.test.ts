// The pages and mails in German and French (issue 17): ui_locales (OIDC Core 3.1.2.1) carried through the whole
// interaction, Accept-Language outside one, DEFAULT_LOCALE, and mails in the language of the page that queued them.
// Every flow once, cheaply: one app, each test with users and browsers of its own.
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { applySeed } from '../../src/domain/admin/seed.js';
import { messageContent, messageLocale, type MessageSetting } from '../../src/domain/notifications/messages.js';
import { findUserByUsername } from '../../src/storage/users.js';
import { ALICE, buildTestApp, CONFIDENTIAL, testConfig, type TestApp } from '../helpers/app.js';
import { DeviceBrowser } from '../helpers/device-browser.js';
import { formAction, hiddenField, localPath, tokenRequest } from '../helpers/flow.js';

const FRENCH = { 'accept-language': 'fr-CH, fr;q=0.9, en;q=0.5' };
const GERMAN = { 'accept-language': 'de-AT' };
/** What the page script posts in an automated browser: AUTOMATION (60 points) asks for a second factor (30). */
const WEBDRIVER = { ds_webdriver: '1', ds_tz: 'UTC', ds_hc: '4', ds_screen: '1280x720', ds_langs: 'de' };

// No notifier: messages stay in the outbox, where the tests read them.
const test: TestApp = await buildTestApp(t, { notifier: null, env: { SIGNUP: 'open' } });
const { app, db } = test;

const SETTING: MessageSetting = {
  serviceName: 'SSO',
  accountUrl: 'http://localhost:3000/sso/account',
  codeMinutes: 5,
  resetMinutes: 30,
  forgotUrl: 'http://localhost:3000/sso/account/forgot',
  signupMinutes: 60,
};

let networks = 0;
/** A browser on a network of its own, so that no throttle of one test reaches another. */
const browser = (headers: Record<string, string> = {}) => {
  networks += 1;
  return new DeviceBrowser({ ip: `10.30.${networks}.1`, headers });
};

async function newUser(name: string) {
  const username = `${name}-${randomBytes(3).toString('hex')}`;
  // Verified: a reset link and a code are mailed only to a verified address (issue 38).
  const user = { username, password: `pw-${randomBytes(6).toString('hex')}`, email: `${username}@example.org`, email_verified: true };
  await applySeed(db, new PasswordHasher(test.config.argon2), { clients: [], users: [user] });
  return { ...user, id: (await findUserByUsername(db, username))!.id };
}

/** The newest outbox message of a kind, and the subject it is mailed with (the language the recipient gets). */
async function lastMessage(kind: string) {
  const row = await db
    .selectFrom('outbox')
    .select(['payload', 'user_id'])
    .where('kind', '=', kind)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as Record<string, unknown>;
  const user = row.user_id ? await db.selectFrom('users').select('locale').where('id', '=', row.user_id).executeTakeFirst() : undefined;
  const locale = messageLocale(payload, user?.locale, test.config.defaultLocale);
  return { payload, locale, content: messageContent({ kind, payload }, SETTING, locale) };
}

const lang = (res: LightMyRequestResponse) => /<html lang="([a-z]+)">/.exec(res.body)?.[1];

t.test('ui_locales=de on /authorize: the sign-in and consent pages speak German, over the browser French', async (t) => {
  const user = await newUser('ui');
  const b = browser(FRENCH);
  const page = await b.openLogin(app, { scope: 'openid email profile', ui_locales: 'ja de fr' });
  t.equal(lang(page.response), 'de', 'the first of ui_locales the pages speak (ja is not one)');
  t.match(page.response.body, '<h1>Anmelden</h1>');
  t.match(page.response.body, 'Benutzername oder E-Mail-Adresse');
  t.match(page.response.body, 'data-failed="Der Passkey konnte nicht verwendet werden."', 'the passkey script’s words too');
  const wrong = await b.login(app, page, { username: user.username, password: 'not-the-password' });
  t.match(wrong.body, 'Benutzername oder Passwort ist nicht korrekt.', 'a refusal too');
  const signedIn = await b.login(app, page, user);
  const consent = await b.request(app, 'GET', localPath(String(signedIn.headers.location)));
  t.equal(lang(consent), 'de', 'the consent page, a separate request, remembers the language');
  t.match(consent.body, '<h1>Zugriff erlauben?</h1>');
  t.match(consent.body, `Angemeldet als <strong>${user.username}</strong>`);
  t.match(consent.body, '<li>Ihre E-Mail-Adresse</li>', 'the scopes are described in German');
  t.match(consent.body, 'Erlauben</button>');
  const done = await b.request(app, 'POST', formAction(consent.body), { csrf: hiddenField(consent.body, 'csrf'), decision: 'allow' });
  t.match(String(done.headers.location), /[?&]code=/, 'the flow ends as in English');
  const again = await b.request(app, 'GET', localPath(String(signedIn.headers.location)));
  t.equal(again.statusCode, 400);
  t.equal(lang(again), 'de', 'an interaction that cannot go on says so in its language too');
  t.match(again.body, 'Kehren Sie zur Anwendung zurück und beginnen Sie erneut.');
  const row = await db.selectFrom('users').select('locale').where('id', '=', user.id).executeTakeFirstOrThrow();
  t.equal(row.locale, 'de', 'the language the user signed in with is remembered');
  const code = new URL(String(done.headers.location)).searchParams.get('code')!;
  const tokens = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: CONFIDENTIAL.redirect_uris[0],
    code_verifier: page.verifier,
  });
  const userinfo = await app.inject({
    method: 'GET',
    url: '/sso/userinfo',
    headers: { authorization: `Bearer ${(tokens.json() as { access_token: string }).access_token}` },
  });
  t.equal(userinfo.json().locale, 'de', 'and released as the OIDC locale claim of the profile scope');
});

t.test('an unsupported ui_locales falls back to Accept-Language, then to DEFAULT_LOCALE (en)', async (t) => {
  const french = await browser(FRENCH).openLogin(app, { ui_locales: 'ja' });
  t.equal(lang(french.response), 'fr');
  t.match(french.response.body, '<h1>Se connecter</h1>');
  const plain = await browser({ 'accept-language': 'ja' }).openLogin(app, { ui_locales: 'ja' });
  t.equal(lang(plain.response), 'en');
  t.match(plain.response.body, '<h1>Sign in</h1>');
});

t.test('DEFAULT_LOCALE=fr speaks French to a browser that asks for nothing, and English to one that asks for it', async (t) => {
  // A second instance on the same database, started with another DEFAULT_LOCALE (a new database costs seconds).
  const french = { app: await buildApp(testConfig({ DEFAULT_LOCALE: 'fr' }), { db, logger: pino({ level: 'silent' }), notifier: null }) };
  t.teardown(() => french.app.close());
  const page = await french.app.inject({ method: 'GET', url: '/sso/account/sign-in' });
  t.equal(lang(page), 'fr');
  t.match(page.body, 'Nom d’utilisateur ou adresse e-mail');
  const english = await french.app.inject({ method: 'GET', url: '/sso/account/sign-in', headers: { 'accept-language': 'en-US' } });
  t.equal(lang(english), 'en');
});

t.test('a second factor in German: the code page and the code mail follow the sign-in page', async (t) => {
  const user = await newUser('otp');
  const b = browser({ 'accept-language': 'en' });
  const page = await b.openLogin(app, { ui_locales: 'de' });
  const res = await b.login(app, page, user, WEBDRIVER);
  t.equal(res.headers.location, `${test.config.issuer}/sign-in/verify`, 'the sign-in is challenged');
  const codePage = await b.request(app, 'GET', '/sso/sign-in/verify');
  t.equal(lang(codePage), 'de');
  t.match(codePage.body, 'Bestätigen Sie, dass Sie es sind');
  t.match(codePage.body, 'Wir haben Ihnen einen sechsstelligen Code gesendet.');
  const wrong = await b.answer(app, '000000');
  t.match(wrong.body, 'Dieser Code ist nicht richtig.');
  const mail = await lastMessage('one-time-code');
  t.equal(mail.locale, 'de');
  t.match(mail.content.subject, 'Ihr Anmeldecode für SSO');
});

t.test('"Forgot your password?" in French: the pages, the reset mail and the notice mail', async (t) => {
  const user = await newUser('reset');
  const b = browser(FRENCH);
  const form = await b.request(app, 'GET', '/sso/account/forgot');
  t.equal(lang(form), 'fr');
  t.match(form.body, '<h1>Mot de passe oublié\u00a0?</h1>');
  const sent = await b.request(app, 'POST', '/sso/account/forgot', { login: user.username });
  t.match(sent.body, 'Consultez vos e-mails');
  const mail = await lastMessage('password-reset');
  t.equal(mail.locale, 'fr', 'the mail is in the language of the page that asked for it');
  t.equal(mail.content.subject, 'Réinitialisez votre mot de passe pour SSO');
  const resetPath = localPath(String(mail.payload.url));
  const reset = await b.request(app, 'GET', resetPath);
  t.match(reset.body, 'Choisir un nouveau mot de passe');
  const token = hiddenField(reset.body, 'token');
  const mismatch = await b.request(app, 'POST', '/sso/account/reset', { token, password: 'a new long password', repeat: 'another one' });
  t.match(mismatch.body, 'Les deux mots de passe ne sont pas identiques.');
  const weak = await b.request(app, 'POST', '/sso/account/reset', { token, password: 'short', repeat: 'short' });
  t.match(weak.body, 'Le mot de passe doit comporter au moins 8 caractères.', 'the password policy speaks French too');
  const done = await b.request(app, 'POST', '/sso/account/reset', {
    token,
    password: 'a new long password',
    repeat: 'a new long password',
  });
  t.match(done.body, 'Mot de passe modifié');
  const notice = await lastMessage('password-changed');
  t.equal(notice.locale, 'fr');
  t.match(notice.content.subject, 'Votre mot de passe SSO a été modifié');
  t.match(notice.content.intro.join(' '), /le \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
});

t.test('sign-up in French: the form, its errors, the verification mail, the code page, and the new user', async (t) => {
  const b = browser(FRENCH);
  const form = await b.request(app, 'GET', '/sso/account/signup');
  t.equal(lang(form), 'fr');
  t.match(form.body, '<h1>Créer un compte</h1>');
  const email = `dodo-${randomBytes(3).toString('hex')}@example.org`;
  const bad = await b.request(app, 'POST', '/sso/account/signup', { email: 'not-an-address', name: '', password: 'x', repeat: 'y' });
  t.match(bad.body, 'Certains champs sont à revoir.');
  t.match(bad.body, 'Saisissez une adresse e-mail, par exemple nom@example.com.');
  t.match(bad.body, 'Saisissez votre nom (200 caractères au plus).');
  const pending = await b.request(app, 'POST', '/sso/account/signup', {
    email,
    name: 'Le Dodo',
    password: 'caucus race winners',
    repeat: 'caucus race winners',
  });
  t.equal(pending.headers.location, 'http://localhost:3000/sso/account/signup/code');
  const mail = await lastMessage('signup-verification');
  t.equal(mail.locale, 'fr');
  t.equal(mail.content.subject, 'Confirmez votre adresse e-mail pour SSO');
  const codePage = await b.request(app, 'GET', '/sso/account/signup/code');
  t.match(codePage.body, 'Les deux sont valables 60 minutes.');
  const wrongCode = String((Number(mail.payload.code) + 1) % 1_000_000).padStart(6, '0');
  const wrong = await b.request(app, 'POST', '/sso/account/signup/code', { code: wrongCode });
  t.match(wrong.body, /Ce code n’est pas correct\. Encore \d essais?/);
  const created = await b.request(app, 'POST', '/sso/account/signup/code', { code: String(mail.payload.code) });
  t.equal(created.headers.location, 'http://localhost:3000/sso/account?done=signed-up');
  const welcome = await b.request(app, 'GET', '/sso/account?done=signed-up');
  t.match(welcome.body, 'Bienvenue\u00a0! Votre adresse e-mail est confirmée');
  const user = await db.selectFrom('users').select('locale').where('email', '=', email).executeTakeFirstOrThrow();
  t.equal(user.locale, 'fr', 'the new user keeps the language they signed up in');
});

t.test('the account pages in German: the account, a password change and an email change (and its mail)', async (t) => {
  const user = await newUser('account');
  const b = browser(GERMAN);
  const start = await b.request(app, 'GET', '/sso/account/sign-in');
  t.equal(lang(start), 'de');
  t.match(start.body, 'um mit Ihrem Konto fortzufahren');
  const signedIn = await b.request(app, 'POST', '/sso/account/sign-in', {
    csrf: hiddenField(start.body, 'csrf'),
    login: user.username,
    password: user.password,
  });
  t.equal(signedIn.headers.location, 'http://localhost:3000/sso/account');
  const account = await b.request(app, 'GET', '/sso/account');
  t.match(account.body, '<h1>Ihr Konto</h1>');
  t.match(account.body, '1 Anmeldung', 'plural forms in German');
  t.match(account.body, 'Authenticator-App einrichten');
  const passwordPage = await b.request(app, 'GET', '/sso/account/password');
  t.match(passwordPage.body, '<h1>Passwort ändern</h1>');
  const wrong = await b.request(app, 'POST', '/sso/account/password', {
    csrf: hiddenField(passwordPage.body, 'csrf'),
    current: 'not it',
    password: 'a brand new password',
    repeat: 'a brand new password',
  });
  t.match(wrong.body, 'Das aktuelle Passwort ist nicht korrekt.');
  const changed = await b.request(app, 'POST', '/sso/account/password', {
    csrf: hiddenField(passwordPage.body, 'csrf'),
    current: user.password,
    password: 'a brand new password',
    repeat: 'a brand new password',
  });
  t.equal(changed.headers.location, 'http://localhost:3000/sso/account?done=password-changed');
  t.equal((await lastMessage('password-changed')).locale, 'de');
  const emailPage = await b.request(app, 'GET', '/sso/account/email');
  t.match(emailPage.body, `Derzeit ist es ${user.email}.`);
  const sent = await b.request(app, 'POST', '/sso/account/email', {
    csrf: hiddenField(emailPage.body, 'csrf'),
    email: `new-${user.email}`,
    password: 'a brand new password',
  });
  t.equal(sent.headers.location, 'http://localhost:3000/sso/account?done=email-sent');
  const verification = await lastMessage('email-verification');
  t.equal(verification.locale, 'de');
  t.equal(verification.content.subject, 'Bestätigen Sie Ihre neue E-Mail-Adresse für SSO');
  t.match((await lastMessage('email-change-notice')).content.subject, 'Ihre E-Mail-Adresse für SSO wird geändert');
  const confirm = await b.request(app, 'GET', localPath(String(verification.payload.url)));
  t.match(confirm.body, `<strong>new-${user.email}</strong> ab jetzt für Ihr Konto verwenden?`);
});

t.test('a mail queued with no page to follow speaks the user’s remembered language, else DEFAULT_LOCALE', async (t) => {
  t.equal(messageLocale({}, 'fr', 'en'), 'fr');
  t.equal(messageLocale({ locale: 'de' }, 'fr', 'en'), 'de', 'the page that queued it wins');
  t.equal(messageLocale({ locale: 'xx' }, null, 'en'), 'en');
});

t.test('device code entry in French', async (t) => {
  const b = browser(FRENCH);
  const page = await b.request(app, 'GET', '/sso/device');
  t.equal(lang(page), 'fr');
  t.match(page.body, '<h1>Connecter un appareil</h1>');
  const wrong = await b.request(app, 'POST', '/sso/device', { csrf: hiddenField(page.body, 'csrf'), user_code: 'BCDF-GHJK' });
  t.match(wrong.body, 'Ce code n’est pas valide.');
});

t.test('the logout confirmation in French (RP-Initiated Logout 1.0 ui_locales), and the page after it', async (t) => {
  const b = browser({ 'accept-language': 'de' });
  const page = await b.openLogin(app);
  const signedIn = await b.login(app, page, ALICE);
  t.equal(signedIn.statusCode, 303);
  const confirm = await b.request(app, 'GET', '/sso/session/end?ui_locales=fr');
  t.equal(lang(confirm), 'fr');
  t.match(confirm.body, '<h1>Se déconnecter\u00a0?</h1>');
  t.match(confirm.body, 'Rester connecté');
  const stay = await b.request(app, 'POST', formAction(confirm.body), {
    csrf: hiddenField(confirm.body, 'csrf'),
    ui_locales: hiddenField(confirm.body, 'ui_locales'),
    decision: 'stay',
  });
  t.match(stay.body, 'Vous êtes toujours connecté');
  const plain = await b.request(app, 'GET', '/sso/session/end');
  t.match(plain.body, '<h1>Abmelden?</h1>', 'without ui_locales, the browser’s language');
});
