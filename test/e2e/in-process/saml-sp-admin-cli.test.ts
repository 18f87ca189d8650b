// `sso-admin connections add ID --kind saml --metadata-file FILE` (issue 39): a SAML IdP added from its metadata,
// shown with what was read from it and our SP metadata URL to give its admin; metadata that does not serve exits 1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { KEYS_SECRET } from '../../helpers/account.js';
import { adminStore, events, json, runAdmin } from '../../helpers/admin-cli.js';
import { idpMetadata, IDP_SSO_URL } from '../../helpers/saml-sp-idp.js';
import { testKeys } from '../../helpers/saml-sp-flow.js';

t.test('connections add --kind saml --metadata-file, show; metadata that does not serve is refused', async (t) => {
  const store = await adminStore(t);
  const env = { ...store.env, ...KEYS_SECRET, BASE_URL: 'https://login.example' };
  const dir = mkdtempSync(path.join(tmpdir(), 'saml-sp-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'idp.xml');
  writeFileSync(file, idpMetadata((await testKeys()).idp));

  const added = await runAdmin(
    [
      'connections',
      'add',
      'corp',
      '--kind',
      'saml',
      '--display-name',
      'Corp SSO',
      '--metadata-file',
      file,
      '--attribute',
      'username=sAMAccountName',
      '--json',
    ],
    env,
  );
  t.match(json(added), {
    id: 'corp',
    kind: 'saml',
    display_name: 'Corp SSO',
    issuer: 'https://idp.example.test/saml/metadata',
    redirect_uri: 'https://login.example/sso/connections/corp/saml/acs',
    created: true,
    saml: {
      idp_entity_id: 'https://idp.example.test/saml/metadata',
      sso_url: IDP_SSO_URL,
      sso_binding: 'redirect',
      signing_certificates: 1,
      allow_unsolicited: false,
      attributes: { username: ['sAMAccountName'] },
      sp_metadata_url: 'https://login.example/sso/connections/corp/saml/metadata',
    },
  });
  t.same(events(added), ['admin.connection.created']);

  const shown = await runAdmin(['connections', 'show', 'corp'], env);
  t.match(shown.stdout, /saml_sp_metadata\s+https:\/\/login\.example\/sso\/connections\/corp\/saml\/metadata/);
  t.match(shown.stdout, /saml_sso_url\s+https:\/\/idp\.example\.test\/saml\/sso \(redirect\)/);

  writeFileSync(file, '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"/>');
  const refused = await runAdmin(['connections', 'add', 'bad', '--kind', 'saml', '--display-name', 'Bad', '--metadata-file', file], env);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /SAML metadata was refused/);
  const missing = await runAdmin(['connections', 'add', 'bad', '--kind', 'saml', '--display-name', 'Bad'], env);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /saml_metadata or saml_metadata_url is required/);
});
