// Every console page speaks German and French as it speaks English (issue 38): read with Accept-Language de or fr,
// no text of the English catalog's console entries is left on any list, edit, new or delete page, so a label that
// skipped translate() fails here; values from the database (names, ids) stay as they are.
import t from 'tap';
import { ADMIN_FIXTURES, adminApiApp } from '../../helpers/admin-api.js';
import { startConsoleSession } from '../../../src/domain/console/console-sessions.js';
import { findUserByUsername } from '../../../src/storage/users.js';
import { CATALOGS, type Locale } from '../../../src/i18n/catalog.js';
import { en } from '../../../src/i18n/locales/en.js';
import { postFromPage } from './console-forms.js';
import { SP_ENTITY_ID, spMetadata } from '../../helpers/saml-idp/sp-metadata.js';

const ADMIN = { username: 'ada', password: 'ada-password-0123', role: 'admin' as const };
const MEMBER = { username: 'tom', password: 'tom-password-0123', email: 'tom@example.com' };

const { app, db } = await adminApiApp(t, { seed: { ...ADMIN_FIXTURES, users: [...ADMIN_FIXTURES.users, ADMIN, MEMBER] } });
const adminCookie = await startConsoleSession({ db, clock: () => new Date() }, (await findUserByUsername(db, ADMIN.username))!.id);
const memberId = (await findUserByUsername(db, MEMBER.username))!.id;

const get = (url: string, language?: string) =>
  app.inject({
    method: 'GET',
    url,
    headers: { cookie: `sso_console=${adminCookie}`, ...(language ? { 'accept-language': language } : {}) },
  });
const csrf = /name="csrf" value="([^"]+)"/.exec((await get('/admin')).body)![1]!;
const create = async (url: string, form: Record<string, string>) => {
  const res = await postFromPage(app, adminCookie, url, { csrf, ...form });
  if (res.statusCode !== 303 && res.statusCode !== 201) throw new Error(`${url}: ${res.statusCode}\n${res.body}`);
  return res;
};

// One of each, so that every page has rows, details and forms to show.
await create('/admin/groups', { name: 'ops', description: 'on call rota' });
const groupId = (await db.selectFrom('groups').select('id').where('name', '=', 'ops').executeTakeFirstOrThrow()).id;
await create(`/admin/groups/${groupId}/members`, { member: MEMBER.username });
await create('/admin/webhooks', {
  id: 'crm',
  url: 'https://crm.example/hooks/sso',
  description: 'crm feed',
  'event:*': 'on',
  enabled: 'on',
});
await create('/admin/connections', { entry: JSON.stringify({ id: 'gl', preset: 'gitlab', client_id: 'abc' }), secret: 'gl-secret-0123' });
const corp = {
  id: 'corp',
  display_name: 'Corp',
  url: 'ldaps://127.0.0.1:1',
  bind_dn: 'cn=sso,dc=example,dc=com',
  user_base: 'ou=people,dc=example,dc=com',
  user_filter: '(uid={login})',
  attributes: { username: 'uid', id_attribute: 'entryUUID' },
};
await create('/admin/directories', { entry: JSON.stringify(corp), secret: 'bind-password-0123' });
const RS = encodeURIComponent('https://orders.example/api');
await create('/admin/resource-servers', { entry: JSON.stringify({ identifier: 'https://orders.example/api', name: 'Orders' }) });
const SP = encodeURIComponent(SP_ENTITY_ID);
await create('/admin/saml-service-providers', {
  metadata_xml: await spMetadata(),
  name_id_format: 'email',
  attributes: 'mail email',
  sign_assertion: 'on',
  limit_groups: 'on',
  allowed_groups: 'ops',
});
await create('/admin/scim-tokens', { name: 'entra', expires_in_days: '30' });
await create('/admin/risk-rules', { kind: 'network', value: '203.0.113.0/24', effect: 'block', note: 'test net' });

const CLIENT = ADMIN_FIXTURES.clients![0]!.client_id;
const PAGES = [
  '/admin',
  '/admin/clients',
  `/admin/clients/${encodeURIComponent(CLIENT)}`,
  '/admin/clients/new',
  `/admin/clients/${encodeURIComponent(CLIENT)}/delete`,
  '/admin/users',
  `/admin/users/${memberId}`,
  '/admin/users/new',
  '/admin/groups',
  `/admin/groups/${groupId}`,
  '/admin/groups/new',
  `/admin/groups/${groupId}/delete`,
  '/admin/webhooks',
  '/admin/webhooks/crm',
  '/admin/webhooks/new',
  '/admin/webhooks/crm/delete',
  '/admin/connections',
  '/admin/connections/gl',
  '/admin/connections/new',
  '/admin/connections/gl/delete',
  '/admin/directories',
  '/admin/directories/corp',
  '/admin/directories/new',
  '/admin/directories/corp/delete',
  '/admin/resource-servers',
  `/admin/resource-servers/${RS}`,
  '/admin/resource-servers/new',
  `/admin/resource-servers/${RS}/delete`,
  '/admin/saml-service-providers',
  `/admin/saml-service-providers/${SP}`,
  '/admin/saml-service-providers/new',
  `/admin/saml-service-providers/${SP}/delete`,
  '/admin/scim-tokens',
  '/admin/scim-tokens/entra',
  '/admin/scim-tokens/new',
  '/admin/scim-tokens/entra/revoke',
  '/admin/risk-rules',
  '/admin/security-events',
  '/admin/signing-keys',
  '/admin/audit',
];

/** Values from the database that English words may spell: the clients' names and authentication methods. */
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const DATA = [
  'Admin console',
  ...(ADMIN_FIXTURES.clients ?? []).flatMap((c) => [c.client_name ?? '', c.token_endpoint_auth_method ?? '']),
].filter((v) => v !== '');

/**
 * What a reader sees of a page: its text, its buttons' accessible names and its fields' placeholders, unescaped,
 * less the values from the database, which stay as they are in every language.
 */
function textOf(body: string): string {
  const attributes = [...body.matchAll(/(?:aria-label|placeholder)="([^"]*)"/g)].map((m) => m[1]);
  return [body.replace(/<[^>]*>/g, ' '), ...attributes]
    .join(' ')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&')
    .replace(/\s+/g, ' ')
    .split(new RegExp(DATA.map((v) => `(?<![\\p{L}\\p{N}_])${escape(v)}(?![\\p{L}\\p{N}_])`).join('|'), 'u'))
    .join(' ');
}

const wordIn = (fragment: string, text: string) => new RegExp(`(?<![\\p{L}\\p{N}_])${escape(fragment)}(?![\\p{L}\\p{N}_])`, 'u').test(text);
const CONSOLE_KEYS = (Object.keys(en) as (keyof typeof en)[]).filter((key) => key.startsWith('console.'));

/**
 * The English console texts left on a page read in `locale`: each entry's words between its {placeholders}. An entry
 * the language writes the same way (Clients, Webhooks), or that is a word of one of its own texts, is no leftover.
 */
function englishLeftIn(locale: Locale, text: string): string[] {
  const own = CONSOLE_KEYS.map((key) => CATALOGS[locale][key]).join('\n');
  const left = new Set<string>();
  for (const key of CONSOLE_KEYS) {
    if (CATALOGS[locale][key] === en[key]) continue;
    for (const raw of en[key].split(/\{\w+\}/)) {
      const fragment = raw.trim().replace(/^[^\p{L}]+|[^\p{L}.)]+$/gu, '');
      if (fragment.length < 4 || !/\p{L}{2}/u.test(fragment) || wordIn(fragment, own)) continue;
      if (wordIn(fragment, text)) left.add(fragment);
    }
  }
  return [...left];
}

for (const [locale, accept] of [
  ['de', 'de-DE,de;q=0.9'],
  ['fr', 'fr-FR,fr;q=0.9'],
] as const) {
  t.test(`in ${locale}, no console page keeps an English label, heading, button, table header or notice`, async (t) => {
    for (const page of PAGES) {
      const res = await get(page, accept);
      t.equal(res.statusCode, 200, page);
      t.match(res.body, new RegExp(`<html lang="${locale}">`), page);
      t.same(englishLeftIn(locale, textOf(res.body)), [], `${page}: English left in ${locale}`);
    }
  });
}

t.test('the check finds English: the same pages in English, and a German page with one English label added', async (t) => {
  for (const page of ['/admin/users', `/admin/webhooks/crm`, '/admin/connections/gl/delete']) {
    t.not(englishLeftIn('de', textOf((await get(page, 'en')).body)).length, 0, `${page} in English is English`);
  }
  const german = textOf((await get(`/admin/users/${memberId}`, 'de')).body);
  t.same(englishLeftIn('de', german), []);
  t.ok(englishLeftIn('de', `${german} Sign out everywhere`).includes('Sign out everywhere'));
});

t.test('notices and form errors after a change are in the reader’s language', async (t) => {
  const saved = await get(`/admin/groups/${groupId}?done=added`, 'de');
  t.match(saved.body, /role="status">Mitglied hinzugefügt\.</);
  const refused = await app.inject({
    method: 'POST',
    url: '/admin/resource-servers',
    headers: { cookie: `sso_console=${adminCookie}`, 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'fr' },
    payload: new URLSearchParams({ csrf, entry: '{ not json' }).toString(),
  });
  t.equal(refused.statusCode, 400);
  t.match(refused.body, /role="alert">l’entrée n’est pas du JSON/);
  t.same(englishLeftIn('fr', textOf(refused.body)), []);
});
