// NOTIFIER=smtp: outbox messages mailed through a real SMTP server on 127.0.0.1 (smtp-server, in this process) and
// read back with mailparser as a mail client would: both parts, the code in each, the login from SMTP_URL used and
// never logged; a stopped server keeps the message in the outbox until it is back; a refused recipient is given up.
import { randomBytes } from 'node:crypto';
import type { ParsedMail } from 'mailparser';
import pino from 'pino';
import t from 'tap';
import { loadConfig } from '../../src/config.js';
import type { ProviderContext } from '../../src/domain/context.js';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { applySeed } from '../../src/domain/admin/seed.js';
import { deliverDueMessages } from '../../src/domain/notifications/notifier.js';
import { renderMail } from '../../src/domain/notifications/mail-render.js';
import { LOCALES } from '../../src/i18n/catalog.js';
import { messageContent, UnknownMessage } from '../../src/domain/notifications/messages.js';
import { smtpNotifier } from '../../src/domain/notifications/smtp-notifier.js';
import { escapeHtml } from '../../src/html.js';
import { insertOutboxMessage, type OutboxKind } from '../../src/storage/outbox.js';
import { findUserByUsername } from '../../src/storage/users.js';
import { TEST_ENV, testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import { startMailServer } from '../helpers/mail-server.js';

const SMTP_PASSWORD = 'smtp-password-9f3c';

const database = await createTestDatabase();
t.teardown(() => database.drop());
const db = database.handle.db;
// BRAND_NAME names the service in mails (TOTP_ISSUER, the host name, when it is unset).
const config = testConfig({ BRAND_NAME: 'Acme Accounts' });
let offsetMs = 0;
const logged: string[] = [];
const ctx = {
  config,
  db,
  clock: () => new Date(Date.now() + offsetMs),
  log: pino({ level: 'info' }, { write: (line: string) => void logged.push(line) }),
} as unknown as ProviderContext;

async function newUser(email: string | null = 'x'): Promise<{ id: string; email: string }> {
  const username = `mail-${randomBytes(3).toString('hex')}`;
  const address = `${username}@example.com`;
  await applySeed(db, new PasswordHasher(config.argon2), {
    clients: [],
    // Verified: a code or a reset link is mailed only to a verified address (issue 38).
    users: [{ username, password: 'a-password-123', ...(email === null ? {} : { email: address, email_verified: true }) }],
  });
  return { id: (await findUserByUsername(db, username))!.id, email: address };
}

const outboxRow = (userId: string) =>
  db
    .selectFrom('outbox')
    .select(['sent_at', 'payload', 'attempts', 'next_attempt_at'])
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();

t.test('a one-time code arrives as text and HTML from MAIL_FROM, sent with the SMTP_URL login, and is wiped once sent', async (t) => {
  const mail = await startMailServer(t, { user: 'relay', password: SMTP_PASSWORD });
  const user = await newUser();
  await insertOutboxMessage(db, { userId: user.id, kind: 'one-time-code', payload: { code: '482913' }, createdAt: ctx.clock() });
  const notifier = smtpNotifier(ctx, { url: mail.url('relay', SMTP_PASSWORD), from: 'Example SSO <sso@example.com>', requireTls: false });
  await deliverDueMessages(ctx, notifier);

  t.same(mail.logins, [{ user: 'relay', password: SMTP_PASSWORD }], 'the login from SMTP_URL');
  const [message] = mail.received as [{ from: string; to: string[]; mail: ParsedMail }];
  t.equal(message.from, 'sso@example.com', 'the envelope sender is MAIL_FROM');
  t.same(message.to, [user.email]);
  const parsed = message.mail;
  t.same(parsed.from?.value, [{ address: 'sso@example.com', name: 'Example SSO' }], 'the From header is MAIL_FROM');
  t.equal(parsed.subject, 'Your sign-in code for Acme Accounts', 'named by BRAND_NAME');
  t.match(parsed.text, /\n {4}482913\n/, 'the code on a line of its own in the text part');
  t.match(parsed.html as string, /<p style="[^"]*">482913<\/p>/, 'and in the HTML part');
  t.match(parsed.text, /valid for 5 minutes/, 'SECOND_FACTOR_TTL_SECONDS in minutes');
  const queued = await db.selectFrom('outbox').select('id').where('user_id', '=', user.id).executeTakeFirstOrThrow();
  t.equal(parsed.messageId, `<outbox-${queued.id}@${new URL(config.issuer).hostname}>`, "the Message-ID is the outbox row's");

  const row = await outboxRow(user.id);
  t.ok(row.sent_at, 'marked sent');
  t.notMatch(JSON.stringify(row.payload), /482913/, 'the code is wiped once sent');
  t.notMatch(logged.join(''), new RegExp(`${SMTP_PASSWORD}|482913`), 'neither the password nor the code is logged');
});

t.test('a new-device notice names the device, escaped in HTML, and links to the account page', async (t) => {
  const mail = await startMailServer(t);
  const user = await newUser();
  const device = 'Firefox <script>alert(1)</script> on Linux';
  await insertOutboxMessage(db, {
    userId: user.id,
    kind: 'new-device',
    payload: { device, at: '2026-11-25T17:06:59.000Z' },
    createdAt: ctx.clock(),
  });
  const notifier = smtpNotifier(ctx, { url: mail.url(), from: 'sso@example.com', requireTls: false });
  await deliverDueMessages(ctx, notifier);
  const parsed = mail.received[0]!.mail;
  t.match(parsed.text, `${device}, on 2026-11-25 17:06 UTC.`);
  t.match(parsed.text, `Review your account: ${config.issuer}/account`);
  t.notMatch(parsed.html as string, '<script>', 'the device label is escaped');
  t.match(parsed.html as string, 'Firefox &lt;script&gt;alert(1)&lt;/script&gt; on Linux');
  t.match(parsed.html as string, `href="${config.issuer}/account"`);
});

t.test('a stopped mail server never loses the message: it waits in the outbox and goes once the server is back', async (t) => {
  // Down, its port held (test/helpers/mail-server.ts): the mail server comes back on the address the notifier was given.
  const mail = await startMailServer(t, { down: true, user: 'relay', password: SMTP_PASSWORD });
  const user = await newUser();
  await insertOutboxMessage(db, { userId: user.id, kind: 'one-time-code', payload: { code: '771204' }, createdAt: ctx.clock() });
  const notifier = smtpNotifier(ctx, {
    url: mail.url('relay', SMTP_PASSWORD),
    from: 'sso@example.com',
    requireTls: false,
  });
  logged.length = 0;
  await deliverDueMessages(ctx, notifier);
  const waiting = await outboxRow(user.id);
  t.equal(waiting.sent_at, null, 'not sent');
  t.equal(waiting.attempts, 1);
  t.match(JSON.stringify(waiting.payload), /771204/, 'the code is kept for the next attempt');
  t.match(logged.join(''), /could not reach the mail server \(ESOCKET\)/, 'the log says why');
  t.notMatch(logged.join(''), new RegExp(`${SMTP_PASSWORD}|771204`), 'and names neither the password nor the code');

  mail.up();
  await deliverDueMessages(ctx, notifier);
  t.equal(mail.received.length, 0, 'not before its backoff is over');
  offsetMs += 2_000;
  await deliverDueMessages(ctx, notifier);
  t.equal(mail.received.length, 1, 'delivered once the server is back');
  t.match(mail.received[0]!.mail.text, '771204');
  offsetMs += 60_000;
  await deliverDueMessages(ctx, notifier);
  t.equal(mail.received.length, 1, 'and only once');
});

t.test('a recipient the server refuses for good (5xx) is not tried again; a user without an address gets nothing', async (t) => {
  const mail = await startMailServer(t, { refuse: (address) => address.startsWith('mail-') });
  const refused = await newUser();
  const none = await newUser(null);
  for (const userId of [refused.id, none.id]) {
    await insertOutboxMessage(db, { userId, kind: 'one-time-code', payload: { code: '100200' }, createdAt: ctx.clock() });
  }
  const notifier = smtpNotifier(ctx, { url: mail.url(), from: 'sso@example.com', requireTls: false });
  await deliverDueMessages(ctx, notifier);
  for (const userId of [refused.id, none.id]) {
    const row = await outboxRow(userId);
    t.equal(row.sent_at, null);
    t.equal(row.next_attempt_at.getUTCFullYear(), 9999, 'given up');
    t.notMatch(JSON.stringify(row.payload), /100200/, 'and the code wiped');
  }
  t.equal(mail.received.length, 0);
});

t.test('a kind this version has no template for is tried again later (a newer instance may write it), not given up', async (t) => {
  const mail = await startMailServer(t);
  const user = await newUser();
  // As a newer instance would queue it during a rolling upgrade: a kind this code does not know.
  await db
    .insertInto('outbox')
    .values({ user_id: user.id, kind: 'from-the-future', payload: '{"x":1}', created_at: ctx.clock(), next_attempt_at: ctx.clock() })
    .execute();
  logged.length = 0;
  await deliverDueMessages(ctx, smtpNotifier(ctx, { url: mail.url(), from: 'sso@example.com', requireTls: false }));
  const row = await outboxRow(user.id);
  t.equal(row.sent_at, null);
  t.not(row.next_attempt_at.getUTCFullYear(), 9999, 'left for another attempt');
  t.match(JSON.stringify(row.payload), /"x":1/, 'with its payload');
  t.match(logged.join(''), 'no template for from-the-future messages');
  t.equal(mail.received.length, 0);
});

t.test('every kind says the same in both parts: each paragraph, code and link of the text is in the HTML', async (t) => {
  const setting = {
    serviceName: 'Example & Co',
    accountUrl: 'https://sso.example/sso/account',
    codeMinutes: 5,
    resetMinutes: 30,
    forgotUrl: 'https://sso.example/sso/account/forgot',
    signupMinutes: 60,
  };
  const payloads: Record<OutboxKind, Record<string, unknown>> = {
    'one-time-code': { code: '123456' },
    'new-device': { device: 'Safari on macOS', at: '2026-11-25T08:00:00.000Z' },
    'password-reset': { url: 'https://sso.example/sso/account/reset?token=abc' },
    'password-changed': { at: '2026-11-25T08:00:00.000Z' },
    'signup-verification': { code: '654321', url: 'https://sso.example/sso/account/signup/verify?token=abc' },
    'account-exists': {},
    invitation: { url: 'https://sso.example/sso/account/signup?invite=abc' },
    'email-verification': { url: 'https://sso.example/sso/account/email/verify?token=abc' },
    'email-taken': {},
    'email-change-notice': { to: 'n***@example.org' },
    'organization-invitation': {
      url: 'https://sso.example/sso/invitations/abc',
      organization: 'Acme & Sons',
      inviter: 'Alice <Admin>',
      expires: '2026-12-15T08:00:00.000Z',
    },
  };
  for (const [locale, kind, payload] of LOCALES.flatMap((locale) => Object.entries(payloads).map((entry) => [locale, ...entry] as const))) {
    const content = messageContent({ kind, payload }, setting, locale);
    const mail = renderMail(content);
    t.ok(mail.html.includes(`<html lang="${locale}">`), `${kind}: the HTML part says its language (${locale})`);
    t.equal(mail.subject, content.subject);
    const parts = [...content.intro, ...content.outro, content.code, content.action?.label, content.action?.url];
    for (const part of parts.filter((p): p is string => p !== undefined)) {
      t.ok(mail.text.includes(part), `${kind}: the text part has "${part}"`);
      t.ok(mail.html.includes(escapeHtml(part)), `${kind}: the HTML part has it, escaped`);
    }
  }
  let refused: unknown;
  try {
    messageContent({ kind: 'new-device', payload: { device: 'x' } }, setting, 'en');
  } catch (err) {
    refused = err;
  }
  t.type(refused, UnknownMessage, 'a payload without its time cannot be written');
  t.match(refused, { message: 'the payload has no at' });
});

t.test('NOTIFIER=smtp needs SMTP_URL (smtp: or smtps:) and MAIL_FROM, and a refused SMTP_URL is never echoed', async (t) => {
  const load = (env: Record<string, string>) => () => loadConfig({ ...TEST_ENV, NOTIFIER: 'smtp', ...env });
  const ok = load({ SMTP_URL: `smtp://relay:${SMTP_PASSWORD}@mail.example:587`, MAIL_FROM: 'SSO <sso@example.com>' })();
  t.equal(ok.notifier, 'smtp');
  t.same(ok.notifierSmtp, { url: `smtp://relay:${SMTP_PASSWORD}@mail.example:587`, from: 'SSO <sso@example.com>', requireTls: true });
  const implicit = load({ SMTP_URL: 'smtps://mail.example', MAIL_FROM: 'sso@example.com' })().notifierSmtp;
  t.same(implicit, { url: 'smtps://mail.example', from: 'sso@example.com', requireTls: false }, 'smtps: TLS from the first byte');
  const local = load({ SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: 'sso@localhost' })().notifierSmtp;
  t.equal(local?.requireTls, false, 'a mail server on loopback may speak plain SMTP (RFC 3207 6: elsewhere STARTTLS is required)');
  t.throws(load({ MAIL_FROM: 'sso@example.com' }), /SMTP_URL must be set/);
  t.throws(load({ SMTP_URL: 'smtp://mail.example' }), /MAIL_FROM must be set/);
  const wrongScheme = `https://relay:${SMTP_PASSWORD}@mail.example`;
  t.throws(load({ SMTP_URL: wrongScheme, MAIL_FROM: 'sso@example.com' }), /SMTP_URL must be smtp:\/\/ or smtps:\/\//);
  try {
    load({ SMTP_URL: wrongScheme, MAIL_FROM: 'sso@example.com' })();
  } catch (err) {
    t.notMatch((err as Error).message, SMTP_PASSWORD, 'the password is not in the error');
  }
  t.throws(load({ SMTP_URL: 'smtp://mail.example', MAIL_FROM: 'not an address' }), /MAIL_FROM must be one email address/);
  t.throws(load({ SMTP_URL: 'smtp://mail.example', MAIL_FROM: 'a@example.com, b@example.com' }), /MAIL_FROM must be one email address/);
  t.throws(load({ SMTP_URL: 'smtp://mail.example', MAIL_FROM: 'a@example.com\r\nBcc: b@example.com' }), /MAIL_FROM/);
  t.equal(loadConfig({ ...TEST_ENV, SMTP_URL: 'smtp://mail.example' }).notifierSmtp, null, 'read only with NOTIFIER=smtp');
});
