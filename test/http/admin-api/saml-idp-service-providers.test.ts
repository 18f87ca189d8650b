// /admin/api/v1/saml-service-providers (src/http/admin-api/saml-service-providers.ts): SAML service providers set
// whole from their metadata (inline, or read from its metadata_url), keyed by the entityID in the path, with If-Match
// for replacement and removal.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { adminApiApp } from '../../helpers/admin-api.js';
import { SP_ACS, SP_ENTITY_ID, spMetadata } from '../../helpers/saml-idp/sp-metadata.js';

const api = await adminApiApp(t);
const path = `/saml-service-providers/${encodeURIComponent(SP_ENTITY_ID)}`;

t.test('PUT registers an SP from its metadata (201), replaces it with If-Match (200), lists, and DELETE removes it', async (t) => {
  const metadata = await spMetadata();
  const created = await api.call(t, 'PUT', path, { body: { metadata_xml: metadata, name_id_format: 'email' } });
  t.equal(created.statusCode, 201, created.body);
  t.equal(created.json().entity_id, SP_ENTITY_ID);
  t.same(created.json().acs[0].location, SP_ACS);
  const read = await api.call(t, 'GET', path);
  t.equal(read.statusCode, 200);
  t.equal((await api.call(t, 'PUT', path, { body: { metadata_xml: metadata } })).statusCode, 428, 'a replacement needs If-Match');
  const replaced = await api.call(t, 'PUT', path, {
    body: { metadata_xml: metadata, idp_initiated: true },
    headers: { 'if-match': read.headers.etag as string },
  });
  t.equal(replaced.statusCode, 200);
  t.equal(replaced.json().idp_initiated, true);
  t.equal(replaced.json().name_id_format, 'unspecified', 'set whole: what the body leaves out goes back to its default');
  t.same(
    (await api.call(t, 'GET', '/saml-service-providers')).json().items.map((sp: { entity_id: string }) => sp.entity_id),
    [SP_ENTITY_ID],
  );
  const current = await api.call(t, 'GET', path);
  t.equal((await api.call(t, 'DELETE', path, { headers: { 'if-match': current.headers.etag as string } })).statusCode, 204);
  t.equal((await api.call(t, 'GET', path)).statusCode, 404);
});

t.test('metadata naming another entityID than the path, or no SP at all, is refused and nothing is stored', async (t) => {
  const other = await api.call(t, 'PUT', `/saml-service-providers/${encodeURIComponent('https://other.example')}`, {
    body: { metadata_xml: await spMetadata() },
  });
  t.equal(other.statusCode, 400);
  t.match(other.json().detail, /names "https:\/\/sp\.example\.test[^"]*", not "https:\/\/other\.example"/);
  const garbage = await api.call(t, 'PUT', path, { body: { metadata_xml: '<x/>' } });
  t.equal(garbage.statusCode, 400);
  t.equal((await api.call(t, 'GET', '/saml-service-providers')).json().items.length, 0);
});

/** A loopback server of the test's own that serves `state.body` with `state.status`, counting the reads. */
async function metadataServer(t: Test, state: { body: string; status: number; reads: number }): Promise<string> {
  const http = createServer((_req, res) => {
    state.reads += 1;
    res.writeHead(state.status, { 'content-type': 'application/samlmetadata+xml' });
    res.end(state.body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => http.close(() => resolve())));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/metadata`;
}

const storedRows = () => api.db.selectFrom('saml_service_providers').selectAll().execute();

t.test('PUT with only a metadata_url reads the metadata from it (201) and stores it with its URL for the refresh', async (t) => {
  const state = { body: await spMetadata(), status: 200, reads: 0 };
  const url = await metadataServer(t, state);
  const created = await api.call(t, 'PUT', path, { body: { metadata_url: url, name_id_format: 'email' } });
  t.equal(created.statusCode, 201, created.body);
  t.equal(state.reads, 1, 'the metadata was read from its URL');
  t.equal(created.json().metadata_url, url);
  t.same(created.json().acs[0].location, SP_ACS, 'the ACS the served metadata names');
  const [row] = await storedRows();
  t.equal(row?.metadata_url, url);
  t.ok(row?.metadata_refreshed_at, 'stored with the time it was read: the refresh job reads it again when stale');
  t.match(row?.metadata_xml, /SPSSODescriptor/, 'the document itself is stored');

  // A replacement from the URL: the SP now publishes a second ACS.
  state.body = await spMetadata({ acs: [{ location: SP_ACS }, { location: 'https://sp.example.test/saml/acs-2' }] });
  const etag = (await api.call(t, 'GET', path)).headers.etag as string;
  const replaced = await api.call(t, 'PUT', path, { body: { metadata_url: url }, headers: { 'if-match': etag } });
  t.equal(replaced.statusCode, 200, replaced.body);
  t.equal(state.reads, 2, 'read again for the replacement');
  t.equal(replaced.json().acs.length, 2);

  // Metadata Core 2.3.2: the entityID identifies the entity; a new URL serving another one is no replacement.
  state.body = await spMetadata({
    entityId: 'https://impostor.example.test/saml',
    acs: [{ location: 'https://impostor.example.test/acs' }],
  });
  const impostor = await api.call(t, 'PUT', path, {
    body: { metadata_url: url, idp_initiated: true },
    headers: { 'if-match': replaced.headers.etag as string },
  });
  t.equal(impostor.statusCode, 400);
  t.match(impostor.json().detail, /names "https:\/\/impostor\.example\.test\/saml", not/);
  t.equal((await api.call(t, 'GET', path)).json().acs.length, 2, 'the stored SP is unchanged');
  t.equal((await api.call(t, 'GET', path)).json().idp_initiated, false);

  const current = await api.call(t, 'GET', path);
  t.equal((await api.call(t, 'DELETE', path, { headers: { 'if-match': current.headers.etag as string } })).statusCode, 204);
});

t.test('a metadata_url that cannot be read or serves no SP metadata is a 400 problem (RFC 9457) and nothing is stored', async (t) => {
  const state = { body: 'down', status: 503, reads: 0 };
  const url = await metadataServer(t, state);
  const down = await api.call(t, 'PUT', path, { body: { metadata_url: url } });
  t.equal(down.statusCode, 400);
  t.match(down.headers['content-type'], 'application/problem+json');
  t.match(down.json(), {
    status: 400,
    code: 'invalid',
    detail: /service provider refused: the metadata of host 127\.0\.0\.1 answered 503/,
  });

  state.status = 200;
  state.body = '<not-metadata/>';
  const bad = await api.call(t, 'PUT', path, { body: { metadata_url: url } });
  t.equal(bad.statusCode, 400);
  t.match(bad.json().detail, /service provider refused: metadata_xml: /, 'checked as inline metadata is');

  state.body = await spMetadata();
  const unencryptable = await api.call(t, 'PUT', path, { body: { metadata_url: url, encrypt_assertion: true } });
  t.equal(unencryptable.statusCode, 400);
  t.match(
    unencryptable.json().detail,
    /encrypt_assertion needs an encryption certificate/,
    'the settings checked against the fetched metadata',
  );

  const refused = await api.call(t, 'PUT', path, { body: { metadata_url: 'http://metadata.example.test/sp' } });
  t.equal(refused.statusCode, 400, 'the guarded fetch: https only for a host other than loopback');
  t.match(refused.json().detail, /the metadata URL must use https/);

  const neither = await api.call(t, 'PUT', path, { body: { name_id_format: 'email' } });
  t.equal(neither.statusCode, 400, 'metadata_xml or metadata_url is required');
  t.same(await storedRows(), []);
});

t.test('the OpenAPI document describes metadata_url and asks for metadata_xml or metadata_url', async (t) => {
  const doc = (await api.app.inject({ method: 'GET', url: '/admin/api/v1/openapi.json' })).json();
  const body = doc.paths['/saml-service-providers/{entity_id}'].put.requestBody.content['application/json'].schema;
  t.match(body.properties.metadata_url, { type: 'string', description: /read from there .* when no metadata_xml is given/ });
  t.same(body.anyOf, [{ required: ['metadata_xml'] }, { required: ['metadata_url'] }]);
});
