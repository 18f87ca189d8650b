// Issue 16 finding 3: a client that registers itself (RFC 7591) names a URI the provider POSTs to itself
// (backchannel_logout_uri). Registration refuses the ones that point to this machine or a private network when the
// URI alone tells (address literals, localhost names), and wants https; OUTBOUND_ALLOW_NETWORKS lets a network in.
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { manage, postRegistration, register, REGISTRATION_ENV, updateBody, WEB_METADATA } from '../../helpers/registration.js';
import { findClient } from '../../../src/storage/clients.js';

const { app, db } = await buildTestApp(t, { env: REGISTRATION_ENV });

const REFUSED = [
  'https://127.0.0.1/bc',
  'https://127.0.0.1:8443/any/path?q=1',
  'https://169.254.169.254/latest/meta-data',
  'https://[::1]/bc',
  'https://10.1.2.3/',
  'https://172.16.0.1/bc',
  'https://192.168.1.1/bc',
  'https://100.64.0.1/bc',
  'https://[fe80::1]/bc',
  'https://[fd00::1]/bc',
  'https://[::ffff:127.0.0.1]/bc',
  'https://[::ffff:a9fe:a9fe]/bc',
  'https://0.0.0.0/bc',
  'https://2130706433/bc',
  'https://localhost/bc',
  'https://api.localhost/bc',
];

t.test('RFC 7591 3.2.2: a backchannel_logout_uri on this machine or a private network is invalid_client_metadata', async (t) => {
  for (const uri of REFUSED) {
    const res = await postRegistration(app, { ...WEB_METADATA, backchannel_logout_uri: uri });
    t.equal(res.statusCode, 400, uri);
    t.equal(res.json().error, 'invalid_client_metadata', uri);
    t.match(res.json().error_description, /backchannel_logout_uri must not point to this machine or a private network/, uri);
  }
});

t.test('RFC 7591 3.2.2: a self-registered client gets https only, loopback http included', async (t) => {
  for (const uri of ['http://127.0.0.1:9/bc', 'http://localhost:9/bc', 'http://[::1]:9/bc']) {
    const res = await postRegistration(app, { ...WEB_METADATA, backchannel_logout_uri: uri });
    t.equal(res.statusCode, 400, uri);
    t.equal(res.json().error, 'invalid_client_metadata', uri);
    t.match(res.json().error_description, /backchannel_logout_uri must use https/, uri);
  }
});

t.test('RFC 7592 2.2: an update cannot move the URI to a refused address either', async (t) => {
  const info = await register(app, { ...WEB_METADATA, backchannel_logout_uri: 'https://rp.example/bc' });
  const res = await manage(
    app,
    'PUT',
    info.client_id,
    info.registration_access_token,
    updateBody(info, { backchannel_logout_uri: 'https://10.0.0.1/bc' }),
  );
  t.equal(res.statusCode, 400);
  t.equal(res.json().error, 'invalid_client_metadata');
  t.equal((await findClient(db, info.client_id))!.metadata.backchannel_logout_uri, 'https://rp.example/bc', 'nothing was written');
});

t.test('a public https URI is registered, and the client is marked as self-registered', async (t) => {
  const info = await register(app, { ...WEB_METADATA, backchannel_logout_uri: 'https://rp.example/bc' });
  t.equal(info.backchannel_logout_uri, 'https://rp.example/bc');
  t.equal((await findClient(db, info.client_id))!.self_registered, true);
});

t.test('OUTBOUND_ALLOW_NETWORKS lets the addresses of an allowed network in, and only those', async (t) => {
  const allowed = await buildTestApp(t, { env: { ...REGISTRATION_ENV, OUTBOUND_ALLOW_NETWORKS: '10.0.0.0/8, fd00::/8' } });
  for (const uri of ['https://10.1.2.3/bc', 'https://[fd00::1]/bc', 'https://[::ffff:10.1.2.3]/bc']) {
    t.equal((await postRegistration(allowed.app, { ...WEB_METADATA, backchannel_logout_uri: uri })).statusCode, 201, uri);
  }
  for (const uri of ['https://127.0.0.1/bc', 'https://192.168.1.1/bc', 'http://10.1.2.3/bc']) {
    t.equal((await postRegistration(allowed.app, { ...WEB_METADATA, backchannel_logout_uri: uri })).statusCode, 400, uri);
  }
});
