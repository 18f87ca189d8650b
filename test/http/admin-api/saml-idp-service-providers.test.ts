// /admin/api/v1/saml-service-providers (src/http/admin-api/saml-service-providers.ts): SAML service providers set
// whole from their metadata, keyed by the entityID in the path, with If-Match for replacement and removal.
import t from 'tap';
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
  t.match(other.json().detail, /not the path's/);
  const garbage = await api.call(t, 'PUT', path, { body: { metadata_xml: '<x/>' } });
  t.equal(garbage.statusCode, 400);
  t.equal((await api.call(t, 'GET', '/saml-service-providers')).json().items.length, 0);
});
