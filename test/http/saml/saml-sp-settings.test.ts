// A saml connection's settings (issue 39): set from the IdP's metadata given as a document or read from its URL
// through the guarded fetch, checked as a seed entry is, shown to an admin with our SP metadata URL, and refreshed
// from its URL when stale, the stored metadata kept when the refresh fails.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import t from 'tap';
import type { AdminContext } from '../../../src/domain/admin/admin.js';
import { setConnection, showConnection } from '../../../src/domain/connections/connection-admin.js';
import { connectionEntryProblems } from '../../../src/domain/connections/seed-connections.js';
import { refreshSamlMetadata, REFRESH_AFTER_MS } from '../../../src/domain/saml/sp/metadata-refresh.js';
import { systemOutbound } from '../../../src/outbound/guarded-fetch.js';
import { idpMetadata, IDP_SSO_URL } from '../../helpers/saml-sp-idp.js';
import { samlApp, testKeys } from '../../helpers/saml-sp-flow.js';

t.test('a saml entry needs metadata, and takes none of the OAuth fields', async (t) => {
  const { idp } = await testKeys();
  t.same(connectionEntryProblems({ id: 'corp', kind: 'saml', display_name: 'Corp', saml_metadata: idpMetadata(idp) }), []);
  t.match(connectionEntryProblems({ id: 'corp', kind: 'saml', display_name: 'Corp' }), [/saml_metadata or saml_metadata_url is required/]);
  t.match(connectionEntryProblems({ id: 'corp', kind: 'saml', display_name: 'Corp', saml_metadata: 'x', client_id: 'a' }), [
    /client_id is not for a saml connection/,
  ]);
  t.match(connectionEntryProblems({ id: 'gh', preset: 'github', client_id: 'a', saml_allow_unsolicited: true }), [
    /saml_allow_unsolicited is for a saml connection/,
  ]);
  t.match(
    connectionEntryProblems({ id: 'corp', kind: 'saml', display_name: 'Corp', saml_metadata: 'x', saml_attributes: { mail: ['x'] } }),
    [/saml_attributes: unknown field "mail"/],
  );
});

t.test('metadata that does not serve is refused, naming why (Metadata 2.4.3)', async (t) => {
  const { server } = await samlApp(t);
  const admin = {
    db: server.db,
    config: server.config,
    clock: () => new Date(),
    log: pino({ level: 'silent' }),
  } as unknown as AdminContext;
  const base = { id: 'bad', kind: 'saml' as const, display_name: 'Bad' };
  await t.rejects(setConnection(admin, { ...base, saml_metadata: '<not-metadata/>' }), /SAML metadata was refused/);
  await t.rejects(
    setConnection(admin, { ...base, saml_metadata: '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><x/>' }),
    /SAML metadata was refused/,
  );
  const { idp } = await testKeys();
  const noCertificate = idpMetadata(idp).replace(/<md:KeyDescriptor[\s\S]*?<\/md:KeyDescriptor>/, '');
  await t.rejects(setConnection(admin, { ...base, saml_metadata: noCertificate }), /no signing certificate/);
  const artifactOnly = idpMetadata(idp).replace(/<md:SingleSignOnService [^>]*\/>/g, (element) =>
    element.replace(/bindings:HTTP-(Redirect|POST)/, 'bindings:HTTP-Artifact'),
  );
  await t.rejects(setConnection(admin, { ...base, saml_metadata: artifactOnly }), /SingleSignOnService/);
  t.equal(await server.db.selectFrom('connections').select('id').where('id', '=', 'bad').executeTakeFirst(), undefined, 'nothing stored');
});

t.test('metadata read from its URL, shown to an admin, and refreshed when stale; a failed refresh keeps it', async (t) => {
  const { idp, other } = await testKeys();
  let served = idpMetadata(idp);
  let status = 200;
  const http = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/samlmetadata+xml' });
    res.end(served);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => http.close(() => resolve())));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/metadata`;
  const { server } = await samlApp(t);
  let now = Date.now();
  const admin = {
    db: server.db,
    config: server.config,
    clock: () => new Date(now),
    log: pino({ level: 'silent' }),
  } as unknown as AdminContext;
  const { created } = await setConnection(admin, { id: 'fetched', kind: 'saml', display_name: 'Fetched', saml_metadata_url: url });
  t.ok(created);
  const view = await showConnection(admin, 'fetched');
  t.equal(view.saml?.idp_entity_id, 'https://idp.example.test/saml/metadata');
  t.equal(view.saml?.sso_url, IDP_SSO_URL);
  t.equal(view.saml?.sso_binding, 'redirect');
  t.equal(view.saml?.metadata_url, url);
  t.equal(view.saml?.sp_metadata_url, 'http://localhost:3000/sso/connections/fetched/saml/metadata');
  t.equal(view.redirect_uri, 'http://localhost:3000/sso/connections/fetched/saml/acs', 'the ACS is what the IdP needs');

  const ctx = {
    db: server.db,
    config: server.config,
    clock: () => new Date(now),
    log: pino({ level: 'silent' }),
    outbound: systemOutbound,
  };
  t.equal(await refreshSamlMetadata(ctx), 0, 'fresh metadata is not read again');
  // The IdP rolls its key: the next certificate is published beside the current one.
  served = served.replace(
    '</md:IDPSSODescriptor>',
    `${idpMetadata(other).match(/<md:KeyDescriptor[\s\S]*?<\/md:KeyDescriptor>/)![0]}</md:IDPSSODescriptor>`,
  );
  now += REFRESH_AFTER_MS;
  t.equal(await refreshSamlMetadata(ctx), 1, 'stale metadata is read again');
  t.equal((await showConnection(admin, 'fetched')).saml?.signing_certificates, 2, 'the next certificate is trusted too');
  status = 503;
  now += REFRESH_AFTER_MS;
  t.equal(await refreshSamlMetadata(ctx), 0, 'an IdP that is down');
  t.equal((await showConnection(admin, 'fetched')).saml?.signing_certificates, 2, 'leaves the stored metadata in place');
});
