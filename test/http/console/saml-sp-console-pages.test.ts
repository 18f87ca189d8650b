// The console's SAML service provider pages (issue 39): one is added from its pasted metadata (or its metadata URL
// alone, read from a loopback server of the test's own) and shown with its
// ACS and the IdP metadata URL its admin needs, its settings changed under the revision the page was read at (RFC
// 9110 13.1.1: a stale one is refused with 412), removed after a confirmation, each change audited with the person;
// an auditor reads but changes nothing.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { ADMIN_FIXTURES, adminApiApp } from '../../helpers/admin-api.js';
import { startConsoleSession } from '../../../src/domain/console/console-sessions.js';
import { findUserByUsername } from '../../../src/storage/users.js';
import { SP_ACS, SP_ENTITY_ID, spMetadata } from '../../helpers/saml-idp/sp-metadata.js';
import { revisionIn } from './console-forms.js';

const ADMIN = { username: 'ada', password: 'ada-password-0123', role: 'admin' as const };
const AUDITOR = { username: 'aud', password: 'aud-password-0123', role: 'auditor' as const };

const api = await adminApiApp(t, { seed: { ...ADMIN_FIXTURES, users: [...ADMIN_FIXTURES.users, ADMIN, AUDITOR] } });
const { app, db } = api;
const clock = { db, clock: () => new Date() };
const adminCookie = await startConsoleSession(clock, (await findUserByUsername(db, ADMIN.username))!.id);
const auditorCookie = await startConsoleSession(clock, (await findUserByUsername(db, AUDITOR.username))!.id);

const get = (url: string, cookie = adminCookie, language?: string) =>
  app.inject({ method: 'GET', url, headers: { cookie: `sso_console=${cookie}`, ...(language ? { 'accept-language': language } : {}) } });
const csrfOf = async (cookie: string) => /name="csrf" value="([^"]+)"/.exec((await get('/admin', cookie)).body)![1]!;
const adminCsrf = await csrfOf(adminCookie);
const auditorCsrf = await csrfOf(auditorCookie);
const post = (url: string, form: Record<string, string>, cookie = adminCookie, csrf = adminCsrf) =>
  app.inject({
    method: 'POST',
    url,
    headers: { cookie: `sso_console=${cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ csrf, ...form }).toString(),
  });
const lastAudit = (event: string) =>
  db.selectFrom('admin_audit_records').selectAll().where('event', '=', event).orderBy('id', 'desc').executeTakeFirst();
const stored = () => db.selectFrom('saml_service_providers').selectAll().where('entity_id', '=', SP_ENTITY_ID).executeTakeFirst();

const PAGE = `/admin/saml-service-providers/${encodeURIComponent(SP_ENTITY_ID)}`;
const metadata = await spMetadata();
/** The settings form as the page fills it, with `changes` typed over it. */
const settings = (changes: Record<string, string> = {}) => ({
  name_id_format: 'unspecified',
  attributes: 'email email\ngroups groups',
  sign_assertion: 'on',
  sign_response: 'on',
  ...changes,
});

t.test('an admin adds a service provider from its pasted metadata and its page shows the ACS and the IdP metadata URL', async (t) => {
  const added = await post('/admin/saml-service-providers', { metadata_xml: metadata, ...settings() });
  t.equal(added.statusCode, 303, added.body.slice(0, 400));
  t.ok(added.headers.location?.endsWith(`${PAGE}?done=created`), 'to its own page');
  const page = await get(PAGE);
  t.equal(page.statusCode, 200);
  t.match(page.body, SP_ENTITY_ID, 'the entity ID');
  t.match(page.body, SP_ACS, 'its assertion consumer service, read from the metadata');
  const idpMetadata = /<code>([^<]+\/saml\/metadata)<\/code>/.exec(page.body)?.[1];
  t.ok(idpMetadata, 'the IdP metadata URL to give the SP');
  const served = await app.inject({ method: 'GET', url: new URL(idpMetadata!).pathname });
  t.equal(served.statusCode, 200, 'that URL serves the IdP metadata');
  t.match(served.body, /IDPSSODescriptor/);
  t.match(page.body, /name="revision" value="[^"]+"/, 'the edit form carries the revision');
  const list = await get('/admin/saml-service-providers');
  t.match(list.body, `${PAGE}">${SP_ENTITY_ID}</a>`, 'listed, linked to its page');
  const row = await stored();
  t.equal(row?.sign_assertion, true);
  t.equal((await lastAudit('admin.saml_sp.created'))?.target_id, SP_ENTITY_ID, 'the addition is audited');
});

t.test('adding a service provider that is registered already is refused with 409 and changes nothing', async (t) => {
  const again = await post('/admin/saml-service-providers', { metadata_xml: metadata, ...settings({ idp_initiated: 'on' }) });
  t.equal(again.statusCode, 409);
  t.match(again.body, /role="alert"/);
  t.equal((await stored())?.idp_initiated, false);
});

t.test('metadata that cannot be read is refused with 400 and the form shows what was typed', async (t) => {
  const bad = await post('/admin/saml-service-providers', { metadata_xml: '<not-metadata/>', ...settings() });
  t.equal(bad.statusCode, 400);
  t.match(bad.body, /role="alert"[^>]*>service provider refused: metadata_xml/);
  t.match(bad.body, /&lt;not-metadata\/&gt;<\/textarea>/, 'the pasted text is shown again, escaped');
  const none = await post('/admin/saml-service-providers', { metadata_xml: '', ...settings() });
  t.equal(none.statusCode, 400);
});

t.test('a change of settings made from the page is saved; one from a stale page is refused with 412', async (t) => {
  const revision = revisionIn((await get(PAGE)).body)!;
  const changed = await post(PAGE, {
    revision,
    ...settings({ name_id_format: 'email', idp_initiated: 'on', sign_response: '', attributes: 'mail email\nRole Name groups' }),
  });
  t.equal(changed.statusCode, 303, changed.body.slice(0, 400));
  const row = await stored();
  t.equal(row?.name_id_format, 'email');
  t.equal(row?.idp_initiated, true);
  t.equal(row?.sign_response, false, 'an unchecked box turns a flag off');
  t.match((await get(PAGE)).body, /Role Name ← groups/, 'an attribute name may hold spaces');
  t.ok(await lastAudit('admin.saml_sp.replaced'), 'the change is audited');

  const stale = await post(PAGE, { revision, ...settings({ name_id_format: 'persistent' }) });
  t.equal(stale.statusCode, 412, 'the form was read before the change');
  t.equal((await stored())?.name_id_format, 'email', 'nothing changed');
  const missing = await post(PAGE, settings({ name_id_format: 'persistent' }));
  t.equal(missing.statusCode, 428, 'a form with no revision (RFC 6585 3)');
});

t.test('a settings form the domain refuses shows the page again with why, and what was typed', async (t) => {
  const revision = revisionIn((await get(PAGE)).body)!;
  const bad = await post(PAGE, { revision, ...settings({ attributes: 'mail nowhere' }) });
  t.equal(bad.statusCode, 400);
  t.match(bad.body, /from must be one of/);
  t.match(bad.body, /mail nowhere<\/textarea>/);
  const lonely = await post(PAGE, { revision, ...settings({ attributes: 'justaname' }) });
  t.equal(lonely.statusCode, 400, 'a line with no source');
  const other = await post(PAGE, { revision, metadata_xml: await spMetadata({ entityId: 'https://other.example/sp' }), ...settings() });
  t.equal(other.statusCode, 400, 'new metadata must name the same entity ID');
  t.match(other.body, /add it as a service provider of its own/);
  const groups = await post(PAGE, { revision, ...settings({ limit_groups: 'on', allowed_groups: 'no-such-group' }) });
  t.equal(groups.statusCode, 400);
  t.match(groups.body, /no group/);
});

t.test('an auditor reads the pages with no form, and each change of theirs is refused with 403', async (t) => {
  const page = await get(PAGE, auditorCookie);
  t.equal(page.statusCode, 200);
  t.notMatch(page.body, /name="revision"/, 'no edit form');
  t.notMatch((await get('/admin/saml-service-providers', auditorCookie)).body, /saml-service-providers\/new/);
  t.equal((await get('/admin/saml-service-providers/new', auditorCookie)).statusCode, 403);
  t.equal((await get(`${PAGE}/delete`, auditorCookie)).statusCode, 403);
  const revision = revisionIn((await get(PAGE)).body)!;
  t.equal((await post(PAGE, { revision, ...settings() }, auditorCookie, auditorCsrf)).statusCode, 403);
  t.equal((await post(`${PAGE}/delete`, { revision }, auditorCookie, auditorCsrf)).statusCode, 403);
  t.ok(await stored(), 'still there');
});

t.test('a form without the session CSRF token is refused with 403', async (t) => {
  const revision = revisionIn((await get(PAGE)).body)!;
  t.equal((await post(`${PAGE}/delete`, { revision }, adminCookie, 'forged')).statusCode, 403);
  t.ok(await stored());
});

t.test('the pages speak German and French', async (t) => {
  for (const [language, word] of [
    ['de', 'SAML-Dienstanbieter'],
    ['fr', 'Fournisseurs de services SAML'],
  ] as const) {
    for (const url of ['/admin/saml-service-providers', PAGE, '/admin/saml-service-providers/new', `${PAGE}/delete`]) {
      const page = await get(url, adminCookie, language);
      t.equal(page.statusCode, 200, `${language} ${url}`);
      t.match(page.body, `lang="${language}"`);
    }
    t.match((await get('/admin/saml-service-providers', adminCookie, language)).body, word);
  }
});

t.test('a service provider is removed after its confirmation page, under its revision', async (t) => {
  const confirm = await get(`${PAGE}/delete`);
  t.equal(confirm.statusCode, 200);
  const revision = revisionIn(confirm.body)!;
  t.equal((await post(`${PAGE}/delete`, { revision: 'W/"stale"' })).statusCode, 412, 'a stale confirmation');
  t.ok(await stored());
  const removed = await post(`${PAGE}/delete`, { revision });
  t.equal(removed.statusCode, 303);
  t.equal(await stored(), undefined);
  t.equal((await get(PAGE)).statusCode, 404);
  t.ok(await lastAudit('admin.saml_sp.removed'), 'the removal is audited');
  t.match((await get('/admin/saml-service-providers')).body, /No SAML service provider yet/);
});

t.test('an admin adds a service provider from its metadata URL alone; one that cannot be read is refused, nothing stored', async (t) => {
  const served = { status: 503, body: 'down' };
  const http = createServer((_req, res) => {
    res.writeHead(served.status, { 'content-type': 'application/samlmetadata+xml' });
    res.end(served.body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => http.close(() => resolve())));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/metadata`;

  const down = await post('/admin/saml-service-providers', { metadata_xml: '', metadata_url: url, ...settings() });
  t.equal(down.statusCode, 400);
  t.match(down.body, /role="alert"[^>]*>service provider refused: the metadata of host 127\.0\.0\.1 answered 503/);
  t.match(down.body, `name="metadata_url" value="${url}"`, 'the URL typed is shown again');
  t.equal(await stored(), undefined, 'nothing stored');

  served.status = 200;
  served.body = metadata;
  const added = await post('/admin/saml-service-providers', { metadata_xml: '', metadata_url: url, ...settings() });
  t.equal(added.statusCode, 303, added.body.slice(0, 400));
  t.ok(added.headers.location?.endsWith(`${PAGE}?done=created`), 'to the page of the entityID the served metadata names');
  const page = await get(PAGE);
  t.match(page.body, SP_ACS, 'the ACS read from the URL');
  const row = await stored();
  t.equal(row?.metadata_url, url, 'stored with its URL, for the refresh');
  t.ok(row?.metadata_refreshed_at, 'and when it was read');
});
