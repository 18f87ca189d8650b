// A service provider registered from its metadata URL (issue 39): read through the guarded fetch when added with a URL
// and no document, refreshed on the SAML connections' schedule, and kept as stored when a refresh fails or names
// another entity.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import t from 'tap';
import type { AdminContext } from '../../src/domain/admin/admin.js';
import { setServiceProvider, showServiceProvider, updateServiceProvider } from '../../src/domain/saml/idp/service-provider-admin.js';
import { refreshServiceProviderMetadata } from '../../src/domain/saml/idp/sp-metadata-refresh.js';
import { REFRESH_AFTER_MS } from '../../src/domain/saml/sp/metadata-refresh.js';
import { systemOutbound } from '../../src/outbound/guarded-fetch.js';
import { buildTestApp } from '../helpers/app.js';
import { SP_ENTITY_ID, spMetadata } from '../helpers/saml-idp/sp-metadata.js';

const MOVED_ACS = 'https://sp.example.test/saml/new-acs';

t.test('an SP added with --metadata-url is read from it, refreshed when stale, and kept when a refresh fails', async (t) => {
  let served = await spMetadata();
  let status = 200;
  let reads = 0;
  const http = createServer((_req, res) => {
    reads += 1;
    res.writeHead(status, { 'content-type': 'application/samlmetadata+xml' });
    res.end(served);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => http.close(() => resolve())));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/metadata`;
  const { db, config } = await buildTestApp(t);
  let now = Date.now();
  const ctx = { db, config, clock: () => new Date(now), log: pino({ level: 'silent' }), outbound: systemOutbound };
  const admin = ctx as unknown as AdminContext;

  const { sp, created } = await setServiceProvider(admin, { metadata_url: url, name_id_format: 'email' });
  t.ok(created);
  t.equal(reads, 1, 'the metadata was read from its URL');
  t.equal(sp.entity_id, SP_ENTITY_ID, 'the entityID the fetched metadata names');
  t.equal(sp.metadata_url, url);

  t.equal(await refreshServiceProviderMetadata(ctx), 0, 'fresh metadata is not read again');
  t.equal(reads, 1);

  // The SP moves its ACS: published in its metadata, picked up by the next refresh once the stored one is stale.
  served = await spMetadata({ acs: [{ location: MOVED_ACS }] });
  now += REFRESH_AFTER_MS;
  t.equal(await refreshServiceProviderMetadata(ctx), 1, 'stale metadata is read again');
  t.same(
    (await showServiceProvider(admin, SP_ENTITY_ID)).acs.map((a) => a.location),
    [MOVED_ACS],
  );

  status = 503;
  now += REFRESH_AFTER_MS;
  t.equal(await refreshServiceProviderMetadata(ctx), 0, 'an SP that is down');
  t.same(
    (await showServiceProvider(admin, SP_ENTITY_ID)).acs.map((a) => a.location),
    [MOVED_ACS],
    'leaves the stored metadata',
  );

  status = 200;
  served = await spMetadata({ entityId: 'https://impostor.example.test/saml', acs: [{ location: 'https://impostor.example.test/acs' }] });
  t.equal(await refreshServiceProviderMetadata(ctx), 0, 'metadata naming another entity');
  t.same(
    (await showServiceProvider(admin, SP_ENTITY_ID)).acs.map((a) => a.location),
    [MOVED_ACS],
    'is not taken',
  );

  // Metadata given inline for an SP with a URL: stored, and read from the URL at the next round.
  served = await spMetadata();
  await updateServiceProvider(admin, SP_ENTITY_ID, { metadata_xml: await spMetadata({ acs: [{ location: MOVED_ACS }] }) });
  t.equal(await refreshServiceProviderMetadata(ctx), 1, 'inline metadata is refreshed from the URL at once');
});

t.test('a metadata URL that cannot be read refuses the SP, nothing stored', async (t) => {
  const { db, config } = await buildTestApp(t);
  const admin = {
    db,
    config,
    clock: () => new Date(),
    log: pino({ level: 'silent' }),
    outbound: systemOutbound,
  } as unknown as AdminContext;
  await t.rejects(
    setServiceProvider(admin, { metadata_url: 'http://127.0.0.1:9/none' }),
    /service provider refused: the metadata of host 127\.0\.0\.1/,
  );
  await t.rejects(
    setServiceProvider(admin, { metadata_url: 'http://metadata.example.test/sp' }),
    /service provider refused: the metadata URL/,
    'the guarded fetch: https only for a host other than loopback',
  );
  t.equal((await db.selectFrom('saml_service_providers').select('entity_id').execute()).length, 0);
});

t.test('an update to a new metadata_url must name the same entityID, as new inline metadata must', async (t) => {
  let served = await spMetadata();
  const http = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' });
    res.end(served);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => http.close(() => resolve())));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const { db, config } = await buildTestApp(t);
  const admin = {
    db,
    config,
    clock: () => new Date(),
    log: pino({ level: 'silent' }),
    outbound: systemOutbound,
  } as unknown as AdminContext;
  await setServiceProvider(admin, { metadata_url: `${base}/first` });

  served = await spMetadata({ entityId: 'https://impostor.example.test/saml', acs: [{ location: 'https://impostor.example.test/acs' }] });
  await t.rejects(
    updateServiceProvider(admin, SP_ENTITY_ID, { metadata_url: `${base}/moved` }),
    /names "https:\/\/impostor\.example\.test\/saml", not "https:\/\/sp\.example\.test\/saml"/,
  );
  t.equal((await showServiceProvider(admin, SP_ENTITY_ID)).metadata_url, `${base}/first`, 'the stored URL stays');

  served = await spMetadata({ acs: [{ location: MOVED_ACS }] });
  const moved = await updateServiceProvider(admin, SP_ENTITY_ID, { metadata_url: `${base}/moved` });
  t.equal(moved.metadata_url, `${base}/moved`, 'a new URL naming the same entity is taken');
  t.same(
    moved.acs.map((a) => a.location),
    [MOVED_ACS],
    'with the metadata read from it',
  );
});
