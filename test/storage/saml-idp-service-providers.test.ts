// `sso-admin saml-sps`: service providers registered from their metadata (entityID and ACS read from it), with their
// NameID format, attributes, signing and group settings, listed, shown, updated and removed with an audit record each.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { adminStore, events, json, runAdmin, type AdminStore } from '../helpers/admin-cli.js';
import { idpMetadataXml } from '../../src/domain/saml/idp/idp-metadata.js';
import { SP_ACS, SP_ENTITY_ID, spMetadata, testSpKey } from '../helpers/saml-idp/sp-metadata.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'saml-sps-'));

async function metadataFile(name: string, xml: string | Promise<string>): Promise<string> {
  const file = path.join(dir, name);
  writeFileSync(file, await xml);
  return file;
}

async function store(t: Test): Promise<AdminStore> {
  return adminStore(t);
}

t.test('add registers the service provider its metadata names, with the ACS from it and the defaults', async (t) => {
  const s = await store(t);
  const file = await metadataFile('sp.xml', spMetadata());
  const added = await runAdmin(['saml-sps', 'add', '--metadata-file', file, '--json'], s.env);
  const sp = json<Record<string, unknown>>(added);
  t.equal(sp.entity_id, SP_ENTITY_ID);
  t.equal(sp.created, true);
  t.same(sp.acs, [{ binding: 'post', location: SP_ACS, index: 0, is_default: true }]);
  t.equal(sp.name_id_format, 'unspecified');
  t.equal(sp.sign_assertion, true);
  t.equal(sp.idp_initiated, false);
  t.same(events(added), ['admin.saml_sp.created']);
  const listed = json<Array<Record<string, unknown>>>(await runAdmin(['saml-sps', 'list', '--json'], s.env));
  t.same(
    listed.map((l) => l.entity_id),
    [SP_ENTITY_ID],
  );
});

t.test('add takes the NameID format, custom attribute names and the IdP-initiated flag', async (t) => {
  const s = await store(t);
  const file = await metadataFile('sp.xml', spMetadata());
  const sp = json(
    await runAdmin(
      [
        'saml-sps',
        'add',
        '--metadata-file',
        file,
        '--name-id-format',
        'persistent',
        '--attribute',
        'https://aws.amazon.com/SAML/Attributes/RoleSessionName=email',
        '--attribute',
        'memberOf=groups',
        '--idp-initiated',
        'yes',
        '--sign-response',
        'no',
        '--json',
      ],
      s.env,
    ),
  );
  t.equal(sp.name_id_format, 'persistent');
  t.same(sp.attributes, [
    { name: 'https://aws.amazon.com/SAML/Attributes/RoleSessionName', from: 'email' },
    { name: 'memberOf', from: 'groups' },
  ]);
  t.equal(sp.idp_initiated, true);
  t.equal(sp.sign_response, false);
});

t.test('metadata without an SPSSODescriptor, or an unknown attribute source, is refused and nothing is stored', async (t) => {
  const s = await store(t);
  const idpOnly = await metadataFile(
    'idp.xml',
    idpMetadataXml({
      issuer: 'https://idp.example',
      ssoUrl: 'https://idp.example/sso',
      sloUrl: 'https://idp.example/slo',
      certificates: [(await testSpKey()).certificatePem],
      wantAuthnRequestsSigned: false,
    }),
  );
  const refused = await runAdmin(['saml-sps', 'add', '--metadata-file', idpOnly], s.env);
  t.not(refused.code, 0);
  t.match(refused.message, /SPSSODescriptor/);
  const dtd = await metadataFile(
    'dtd.xml',
    '<!DOCTYPE x [<!ENTITY e "x">]><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="&e;"/>',
  );
  t.not((await runAdmin(['saml-sps', 'add', '--metadata-file', dtd], s.env)).code, 0, 'a DTD is never parsed');
  const file = await metadataFile('sp.xml', spMetadata());
  const badAttribute = await runAdmin(['saml-sps', 'add', '--metadata-file', file, '--attribute', 'x=password_hash'], s.env);
  t.not(badAttribute.code, 0);
  t.match(badAttribute.message, /from must be one of/);
  t.same(json(await runAdmin(['saml-sps', 'list', '--json'], s.env)), []);
});

t.test('update changes only the settings given, and refuses metadata naming another entityID', async (t) => {
  const s = await store(t);
  const file = await metadataFile('sp.xml', spMetadata());
  await runAdmin(['saml-sps', 'add', '--metadata-file', file, '--name-id-format', 'email'], s.env);
  const updated = json(await runAdmin(['saml-sps', 'update', SP_ENTITY_ID, '--idp-initiated', 'yes', '--json'], s.env));
  t.equal(updated.idp_initiated, true);
  t.equal(updated.name_id_format, 'email', 'what was not given stays');
  const moved = await metadataFile('sp2.xml', spMetadata({ acs: [{ location: 'https://sp.example.test/acs2' }] }));
  const withNewAcs = json(await runAdmin(['saml-sps', 'update', SP_ENTITY_ID, '--metadata-file', moved, '--json'], s.env));
  t.same(
    (withNewAcs.acs as Array<{ location: string }>).map((a) => a.location),
    ['https://sp.example.test/acs2'],
  );
  const other = await metadataFile('other.xml', spMetadata({ entityId: 'https://other.example' }));
  const refused = await runAdmin(['saml-sps', 'update', SP_ENTITY_ID, '--metadata-file', other], s.env);
  t.not(refused.code, 0);
  t.match(refused.message, /names "https:\/\/other.example"/);
  t.equal(json(await runAdmin(['saml-sps', 'show', SP_ENTITY_ID, '--json'], s.env)).idp_initiated, true);
});

t.test('allowed groups must name existing groups, and any-group lifts the limit', async (t) => {
  const s = await store(t);
  const file = await metadataFile('sp.xml', spMetadata());
  const refused = await runAdmin(['saml-sps', 'add', '--metadata-file', file, '--allowed-group', 'nobody'], s.env);
  t.not(refused.code, 0);
  t.match(refused.message, /names no group "nobody"/);
  await runAdmin(['groups', 'add', 'staff'], s.env);
  const limited = json(await runAdmin(['saml-sps', 'add', '--metadata-file', file, '--allowed-group', 'staff', '--json'], s.env));
  t.same(limited.allowed_groups, ['staff']);
  const lifted = json(await runAdmin(['saml-sps', 'update', SP_ENTITY_ID, '--any-group', '--json'], s.env));
  t.equal(lifted.allowed_groups, undefined);
});

t.test('remove deletes the service provider with an audit record', async (t) => {
  const s = await store(t);
  const file = await metadataFile('sp.xml', spMetadata());
  await runAdmin(['saml-sps', 'add', '--metadata-file', file], s.env);
  const removed = await runAdmin(['saml-sps', 'remove', SP_ENTITY_ID, '--yes'], s.env);
  t.equal(removed.code, 0, removed.stderr);
  t.same(events(removed), ['admin.saml_sp.removed']);
  t.same(json(await runAdmin(['saml-sps', 'list', '--json'], s.env)), []);
  t.not((await runAdmin(['saml-sps', 'show', SP_ENTITY_ID], s.env)).code, 0);
});

t.test('rotate-key adds a SAML key that is published now and signs after the delay, with an audit record', async (t) => {
  const s = await store(t);
  t.same(json(await runAdmin(['saml-sps', 'keys', '--json'], s.env)), [], 'none before the first use');
  const rotated = await runAdmin(['saml-sps', 'rotate-key', '--delay', '600', '--yes', '--json'], s.env);
  t.equal(rotated.code, 0, rotated.stderr);
  t.same(events(rotated), ['admin.saml_key.rotated']);
  const keys = json<Array<{ id: string; state: string; encrypted: boolean }>>(await runAdmin(['saml-sps', 'keys', '--json'], s.env));
  t.same(
    keys.map((k) => k.state),
    ['active', 'pending'],
    'the first key, made then, signs until the new one activates',
  );
  t.equal(keys[1]!.id, json(rotated).id);
  t.not((await runAdmin(['saml-sps', 'rotate-key', '--delay', 'soon', '--yes'], s.env)).code, 0);
});

t.test('encrypt-assertion needs an encryption certificate in the metadata', async (t) => {
  const s = await store(t);
  const file = await metadataFile('sp.xml', spMetadata());
  const refused = await runAdmin(['saml-sps', 'add', '--metadata-file', file, '--encrypt-assertion', 'yes'], s.env);
  t.not(refused.code, 0);
  t.match(refused.message, /encryption certificate/);
  const withKey = await metadataFile(
    'enc.xml',
    (await spMetadata())
      .replace('use="signing"', 'use="encryption"')
      .replace('<md:KeyDescriptor use="encryption">', '<md:KeyDescriptor use="encryption">'),
  );
  const added = json(await runAdmin(['saml-sps', 'add', '--metadata-file', withKey, '--encrypt-assertion', 'yes', '--json'], s.env));
  t.equal(added.encrypt_assertion, true);
});
