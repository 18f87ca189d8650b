// A saml connection in the console (issue 39): created from the IdP's metadata typed into the entry, shown with our
// ACS as the address to give the IdP, and changed from the form the console fills with its current entry.
import t from 'tap';
import { ADMIN_FIXTURES, adminApiApp } from '../../helpers/admin-api.js';
import { startConsoleSession } from '../../../src/domain/console/console-sessions.js';
import { findUserByUsername } from '../../../src/storage/users.js';
import { idpMetadata } from '../../helpers/saml-sp-idp.js';
import { testKeys } from '../../helpers/saml-sp-flow.js';
import { revisionIn } from './console-forms.js';

const ADMIN = { username: 'ada', password: 'ada-password-0123', role: 'admin' as const };
const api = await adminApiApp(t, { seed: { ...ADMIN_FIXTURES, users: [...ADMIN_FIXTURES.users, ADMIN] } });
const { app, db } = api;
const cookie = await startConsoleSession({ db, clock: () => new Date() }, (await findUserByUsername(db, ADMIN.username))!.id);
const get = (url: string) => app.inject({ method: 'GET', url, headers: { cookie: `sso_console=${cookie}` } });
const csrf = /name="csrf" value="([^"]+)"/.exec((await get('/admin')).body)![1]!;
const post = (url: string, form: Record<string, string>) =>
  app.inject({
    method: 'POST',
    url,
    headers: { cookie: `sso_console=${cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ csrf, ...form }).toString(),
  });

t.test('a saml connection is created from its metadata, shown with our ACS, and changed from its own entry', async (t) => {
  const metadata = idpMetadata((await testKeys()).idp);
  const created = await post('/admin/connections', {
    entry: JSON.stringify({ id: 'corp', kind: 'saml', display_name: 'Corp SSO', saml_metadata: metadata }),
  });
  t.equal(created.statusCode, 303, created.body.slice(0, 300));
  const page = await get('/admin/connections/corp');
  t.equal(page.statusCode, 200);
  t.match(page.body, /\/connections\/corp\/saml\/acs/, 'the ACS is the address the IdP needs');
  const edit = await get('/admin/connections/corp');
  const revision = revisionIn(edit.body)!;
  const current = (await api.call(t, 'GET', '/connections/corp')).json<{ saml: { metadata_xml: string } }>();
  const changed = await post('/admin/connections/corp', {
    revision,
    entry: JSON.stringify({
      id: 'corp',
      kind: 'saml',
      display_name: 'Corp SSO',
      saml_metadata: current.saml.metadata_xml,
      saml_allow_unsolicited: true,
      provisioning: 'link',
    }),
  });
  t.equal(changed.statusCode, 303, changed.body.slice(0, 300));
  const after = (await api.call(t, 'GET', '/connections/corp')).json<{ provisioning: string; saml: { allow_unsolicited: boolean } }>();
  t.equal(after.provisioning, 'link');
  t.equal(after.saml.allow_unsolicited, true);
  // The form the console fills for a change is the connection's own entry: sent back as it is, it is taken.
  const form = /<textarea[^>]*name="entry"[^>]*>([\s\S]*?)<\/textarea>/.exec((await get('/admin/connections/corp')).body)?.[1];
  t.ok(form, 'the page has the entry to edit');
  const unescaped = form!
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
  const resent = await post('/admin/connections/corp', {
    revision: revisionIn((await get('/admin/connections/corp')).body)!,
    entry: unescaped,
  });
  t.equal(resent.statusCode, 303, resent.body.slice(0, 400));
});
