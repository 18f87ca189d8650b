// The console speaks English, German and French as the sign-in pages do outside an authorization request
// (docs/languages.md): the browser's Accept-Language (RFC 9110 12.5.4), then DEFAULT_LOCALE; the page says its
// language in <html lang>, and its frame, refusals and dashboard are in it.
import t from 'tap';
import { buildTestApp, CONFIDENTIAL, FIXTURES } from '../../helpers/app.js';
import { startConsoleSession } from '../../../src/domain/console/console-sessions.js';
import { findUserByUsername } from '../../../src/storage/users.js';

const ADMIN = { username: 'ada', password: 'ada-password-0123', role: 'admin' as const };
const AUDITOR = { username: 'aud', password: 'aud-password-0123', role: 'auditor' as const };
const { app, db } = await buildTestApp(t, {
  env: { DEFAULT_LOCALE: 'fr' },
  seed: { ...FIXTURES, users: [...FIXTURES.users, ADMIN, AUDITOR] },
});
const session = async (username: string) =>
  startConsoleSession({ db, clock: () => new Date() }, (await findUserByUsername(db, username))!.id);
const adminCookie = await session(ADMIN.username);
const auditorCookie = await session(AUDITOR.username);

const get = (url: string, language?: string, cookie = adminCookie) =>
  app.inject({ method: 'GET', url, headers: { cookie: `sso_console=${cookie}`, ...(language ? { 'accept-language': language } : {}) } });

t.test('Accept-Language picks the language: German for de-CH, English for en, DEFAULT_LOCALE without one', async (t) => {
  const de = await get('/admin', 'de-CH, en;q=0.5');
  t.match(de.body, /<html lang="de">/);
  t.match(de.body, />Abmelden<\/button>/);
  t.match(de.body, /ada \(Admin\)/);
  t.match(de.body, /Neue Benutzer, letzte 7 Tage, pro Tag: \d+ insgesamt/);
  t.match(de.body, /<h1>Übersicht<\/h1>/);
  t.match(de.body, />Ressourcenserver<\/a>/, 'the navigation too');

  const en = await get('/admin', 'en-GB');
  t.match(en.body, /<html lang="en">/);
  t.match(en.body, />Sign out<\/button>/);
  t.match(en.body, /New users, last 7 days, by day: \d+ in all/);

  const none = await get('/admin');
  t.match(none.body, /<html lang="fr">/, 'DEFAULT_LOCALE=fr applies');
  t.match(none.body, />Se déconnecter<\/button>/);
  t.match(none.body, /Nouveaux utilisateurs, 7 derniers jours, par jour : \d+ au total/);
  t.match(none.body, /ada \(administrateur\)/);
});

t.test("an auditor's refusal is said in their language", async (t) => {
  const res = await get('/admin/clients/new', 'de', auditorCookie);
  t.equal(res.statusCode, 403);
  t.match(res.body, /<h1>Nur lesen<\/h1>/);
  t.match(res.body, /Ihre Rolle ist Prüfer/);
  const fr = await get('/admin/clients/new', 'fr-CA', auditorCookie);
  t.match(fr.body, /Votre rôle est auditeur/);
});

t.test("a form sent after the resource changed is refused in the reader's language", async (t) => {
  const csrf = /name="csrf" value="([^"]+)"/.exec((await get('/admin', 'de')).body)![1]!;
  const res = await app.inject({
    method: 'POST',
    url: `/admin/clients/${CONFIDENTIAL.client_id}`,
    headers: { cookie: `sso_console=${adminCookie}`, 'accept-language': 'de', 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      csrf,
      revision: '"not-the-current-one"',
      client_name: 'x',
      redirect_uris: CONFIDENTIAL.redirect_uris[0]!,
    }).toString(),
  });
  t.equal(res.statusCode, 412);
  t.match(res.body, /Jemand anderes hat dies geändert/);
});
