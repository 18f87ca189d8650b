// Issue 38 finding 2: RFC 7592 2.2 updates went through the same range table as RFC 7591 registrations, and that
// table let [::ffff:0:a9fe:a9fe] (169.254.169.254, IPv4-translated), [64:ff9b:1::...] (local-use NAT64), 6to4 and
// Teredo addresses pass as public. Every spelling of a refused address (test/helpers/address-spellings.ts) is now
// refused as jwks_uri, backchannel_logout_uri and sector_identifier_uri, by POST /register and PUT /register/{id}.
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { REFUSED_LITERALS } from '../../helpers/address-spellings.js';
import { manage, postRegistration, register, REGISTRATION_ENV, updateBody, WEB_METADATA } from '../../helpers/registration.js';
import { findClient } from '../../../src/storage/clients.js';

const { app, db } = await buildTestApp(t, { env: REGISTRATION_ENV });

const FIELDS = ['jwks_uri', 'backchannel_logout_uri', 'sector_identifier_uri'] as const;

t.test('RFC 7591 3.2.2: POST /register refuses every spelling of a refused address as invalid_client_metadata', async (t) => {
  for (const field of FIELDS) {
    for (const uri of REFUSED_LITERALS) {
      const res = await postRegistration(app, { ...WEB_METADATA, [field]: uri });
      t.equal(res.statusCode, 400, `${field}: ${uri}`);
      t.equal(res.json().error, 'invalid_client_metadata', `${field}: ${uri}`);
      t.match(res.json().error_description, field, `${field}: ${uri}`);
    }
  }
});

t.test('RFC 7592 2.2: PUT /register/{id} refuses the same spellings, and writes nothing', async (t) => {
  const info = await register(app, { ...WEB_METADATA, backchannel_logout_uri: 'https://rp.example/bc' });
  for (const field of FIELDS) {
    for (const uri of REFUSED_LITERALS) {
      const res = await manage(app, 'PUT', info.client_id, info.registration_access_token, updateBody(info, { [field]: uri }));
      t.equal(res.statusCode, 400, `${field}: ${uri}`);
      t.equal(res.json().error, 'invalid_client_metadata', `${field}: ${uri}`);
      t.match(res.json().error_description, field, `${field}: ${uri}`);
    }
  }
  const stored = (await findClient(db, info.client_id))!;
  t.equal(stored.metadata.backchannel_logout_uri, 'https://rp.example/bc', 'nothing was written');
  t.notOk('jwks_uri' in stored.metadata);
  t.equal(stored.revision, 1, 'no update was made');
});

t.test('the finding as reported: [::ffff:0:a9fe:a9fe] as jwks_uri and backchannel_logout_uri, created and updated', async (t) => {
  const uri = 'https://[::ffff:0:a9fe:a9fe]/x';
  const info = await register(app);
  for (const field of ['jwks_uri', 'backchannel_logout_uri']) {
    const created = await postRegistration(app, { ...WEB_METADATA, [field]: uri });
    t.match(created.json(), { error: 'invalid_client_metadata', error_description: `${field} must not point to this machine` });
    const updated = await manage(app, 'PUT', info.client_id, info.registration_access_token, updateBody(info, { [field]: uri }));
    t.match(updated.json(), { error: 'invalid_client_metadata', error_description: `${field} must not point to this machine` });
  }
});
