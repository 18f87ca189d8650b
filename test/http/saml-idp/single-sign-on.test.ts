// Web Browser SSO at {issuer}/saml/sso (SAML Profiles 2.0 §4.1) with node-saml as the service provider: its
// AuthnRequests over HTTP-Redirect and HTTP-POST (signed and not), our Response checked by it; each refusal gets an
// error page and no SAMLResponse.
import { type SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import type { FastifyInstance } from 'fastify';
import t, { type Test } from 'tap';
import { decodeRedirectMessage, encodePostMessage } from '../../../src/domain/saml/bindings.js';
import { generateSamlKey } from '../../../src/domain/keys/saml-keys.js';
import { spColumns, type SamlSpEntry } from '../../../src/domain/saml/idp/service-providers.js';
import { upsertSamlServiceProviderRow } from '../../../src/storage/saml-service-providers.js';
import type { Db } from '../../../src/storage/database.js';
import { ALICE, buildTestApp, CONFIDENTIAL } from '../../helpers/app.js';
import { Browser, formAction, hiddenField, signIn } from '../../helpers/flow.js';
import { nodeSamlSp } from '../../helpers/saml-idp/node-saml-sp.js';
import { SP_ACS, SP_ENTITY_ID, spMetadata, testSpKey } from '../../helpers/saml-idp/sp-metadata.js';

interface Setup {
  app: FastifyInstance;
  db: Db;
  idpCert: string;
}

async function setup(t: Test, entry: Partial<SamlSpEntry> = {}, metadata: Parameters<typeof spMetadata>[0] = {}): Promise<Setup> {
  const { app, db } = await buildTestApp(t);
  await upsertSamlServiceProviderRow(db, spColumns({ metadata_xml: await spMetadata(metadata), ...entry }), new Date());
  const res = await app.inject({ method: 'GET', url: '/sso/saml/metadata' });
  const idpCert = /<ds:X509Certificate>([^<]+)</.exec(res.body)![1]!;
  return { app, db, idpCert };
}

async function signedInBrowser(app: FastifyInstance): Promise<Browser> {
  const { browser } = await signIn(app, {
    response_type: 'code',
    client_id: CONFIDENTIAL.client_id,
    redirect_uri: CONFIDENTIAL.redirect_uris[0],
    scope: 'openid',
  });
  return browser;
}

const localPath = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

function formOf(body: string): { action: string; SAMLResponse?: string; RelayState?: string } {
  const action = /<form method="post" action="([^"]+)"/.exec(body)?.[1] ?? '';
  const decode = (v: string | undefined) =>
    v
      ?.replace(/&amp;/g, '&')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'");
  const field = (name: string) => (body.includes(`name="${name}"`) ? hiddenField(body, name) : undefined);
  return { action: decode(action)!, SAMLResponse: field('SAMLResponse'), RelayState: decode(field('RelayState')) };
}

t.test(
  'SP-initiated over HTTP-Redirect: a signed-in person is posted to the ACS with a response node-saml accepts (Profiles §4.1.4)',
  async (t) => {
    const { app, idpCert } = await setup(t, { name_id_format: 'email' });
    const browser = await signedInBrowser(app);
    const saml = nodeSamlSp(idpCert);
    const url = await saml.getAuthorizeUrlAsync('relay-123', undefined, {});
    const res = await browser.request(app, 'GET', localPath(url));
    t.equal(res.statusCode, 200);
    const form = formOf(res.body);
    t.equal(form.action, SP_ACS);
    t.equal(form.RelayState, 'relay-123', 'Bindings §3.5.3: the RelayState comes back as it was sent');
    const { profile } = await saml.validatePostResponseAsync({ SAMLResponse: form.SAMLResponse! });
    t.equal(profile!.nameID, ALICE.email);
    t.equal(profile!.email, ALICE.email);
    t.equal(profile!.givenName, ALICE.given_name);
    t.equal(profile!.sn, ALICE.family_name);
    t.equal(profile!.displayName, ALICE.name);
  },
);

t.test(
  'SP-initiated over HTTP-POST with a signed request, from an SP whose metadata says AuthnRequestsSigned (Bindings §3.5)',
  async (t) => {
    const { app, idpCert } = await setup(t, {}, { authnRequestsSigned: true });
    const browser = await signedInBrowser(app);
    const key = await testSpKey();
    const saml = nodeSamlSp(idpCert, {
      privateKey: key.privateKeyPem,
      authnRequestBinding: 'HTTP-POST',
      signatureAlgorithm: 'sha256',
    });
    const html = await saml.getAuthorizeFormAsync('', undefined, {});
    // node-saml DEFLATEs its POST form's value (Bindings §3.5.4 says base64 of the XML alone): its signed XML, re-encoded.
    const deflated = /name="SAMLRequest" value="([^"]+)"/.exec(html)![1]!;
    const signedXml = decodeRedirectMessage(deflated);
    t.match(signedXml, /<(ds:)?Signature/, 'node-saml signed the request (enveloped)');
    const request = encodePostMessage(signedXml);
    const res = await browser.request(app, 'POST', '/sso/saml/sso', { SAMLRequest: request });
    t.equal(res.statusCode, 200, /<p class="lead">([^<]*)/.exec(res.body)?.[1] ?? '');
    const { profile } = await saml.validatePostResponseAsync({ SAMLResponse: formOf(res.body).SAMLResponse! });
    t.equal(profile!.nameID, ALICE.username, 'unspecified: the username');
  },
);

t.test('a signed HTTP-Redirect request is checked over its query octets (Bindings §3.4.4.1)', async (t) => {
  const { app, idpCert } = await setup(t, {}, { authnRequestsSigned: true });
  const browser = await signedInBrowser(app);
  const saml = nodeSamlSp(idpCert, { privateKey: (await testSpKey()).privateKeyPem, signatureAlgorithm: 'sha256' });
  const url = new URL(await saml.getAuthorizeUrlAsync('r', undefined, {}));
  t.equal((await browser.request(app, 'GET', `${url.pathname}${url.search}`)).statusCode, 200);
  url.searchParams.set('RelayState', 'changed');
  const tampered = await browser.request(app, 'GET', `${url.pathname}${url.search}`);
  t.equal(tampered.statusCode, 400, 'a RelayState changed after signing breaks the signature');
  t.notMatch(tampered.body, /SAMLResponse/);
});

t.test('refusals get an error page and no SAMLResponse, even for a signed-in person', async (t) => {
  const { app, idpCert } = await setup(t, {}, { authnRequestsSigned: true });
  const browser = await signedInBrowser(app);
  const other = await generateSamlKey('https://attacker.example', new Date());
  const cases: Array<[string, SAML]> = [
    ['an unsigned request from an SP that signs its requests (Metadata §2.4.4)', nodeSamlSp(idpCert)],
    ['a request signed with another key', nodeSamlSp(idpCert, { privateKey: other.privateKeyPem, signatureAlgorithm: 'sha256' })],
    [
      'an unknown issuer',
      nodeSamlSp(idpCert, {
        issuer: 'https://unknown.example',
        privateKey: (await testSpKey()).privateKeyPem,
        signatureAlgorithm: 'sha256',
      }),
    ],
    [
      'an ACS URL not in the metadata (Profiles §4.1.4.1)',
      nodeSamlSp(idpCert, {
        callbackUrl: 'https://attacker.example/acs',
        privateKey: (await testSpKey()).privateKeyPem,
        signatureAlgorithm: 'sha256',
      }),
    ],
  ];
  for (const [what, saml] of cases) {
    const res = await browser.request(app, 'GET', localPath(await saml.getAuthorizeUrlAsync('', undefined, {})));
    t.equal(res.statusCode, 400, what);
    t.notMatch(res.body, /SAMLResponse/, `${what}: no response`);
    t.notMatch(res.body, /attacker/, `${what}: nothing posted to the attacker`);
  }
  const garbage = await browser.request(app, 'POST', '/sso/saml/sso', { SAMLRequest: Buffer.from('<!DOCTYPE x><x/>').toString('base64') });
  t.equal(garbage.statusCode, 400, 'a DTD is refused before parsing');
});

t.test('IsPassive without a session is answered with a signed NoPassive status (Core §3.4.1)', async (t) => {
  const { app, idpCert } = await setup(t);
  const saml = nodeSamlSp(idpCert, { passive: true });
  const res = await new Browser().request(app, 'GET', localPath(await saml.getAuthorizeUrlAsync('', undefined, {})));
  t.equal(res.statusCode, 200);
  const { profile } = await saml.validatePostResponseAsync({ SAMLResponse: formOf(res.body).SAMLResponse! });
  t.equal(profile, null, 'nobody is signed in at the SP');
});

/** Signs in on the provider's own sign-in page the browser was sent to, following redirects back to the SAML endpoint. */
async function signInThere(app: FastifyInstance, browser: Browser, location: string) {
  let res = await browser.request(app, 'GET', localPath(new URL(location, 'http://localhost:3000').href));
  t.equal(res.statusCode, 200, 'the sign-in page');
  res = await browser.request(app, 'POST', formAction(res.body), {
    csrf: hiddenField(res.body, 'csrf'),
    login: ALICE.username,
    password: ALICE.password,
  });
  for (let i = 0; i < 4 && (res.statusCode === 303 || res.statusCode === 302); i += 1) {
    res = await browser.request(app, 'GET', localPath(new URL(String(res.headers.location), 'http://localhost:3000').href));
  }
  return res;
}

t.test(
  "without a session the person signs in on the provider's page, then the waiting request is answered (Profiles §4.1.3)",
  async (t) => {
    const { app, idpCert } = await setup(t, { name_id_format: 'email' });
    const saml = nodeSamlSp(idpCert);
    const browser = new Browser();
    const started = await browser.request(app, 'GET', localPath(await saml.getAuthorizeUrlAsync('back-here', undefined, {})));
    t.equal(started.statusCode, 303);
    t.match(String(started.headers.location), /\/sso\/account\/sign-in$/);
    t.notMatch(started.body, /SAMLResponse/);
    const res = await signInThere(app, browser, String(started.headers.location));
    t.equal(res.statusCode, 200);
    const form = formOf(res.body);
    t.equal(form.action, SP_ACS);
    t.equal(form.RelayState, 'back-here');
    const { profile } = await saml.validatePostResponseAsync({ SAMLResponse: form.SAMLResponse! });
    t.equal(profile!.nameID, ALICE.email, 'node-saml accepts it, InResponseTo its own request');
    const again = await browser.request(app, 'GET', '/sso/saml/resume');
    t.equal(again.statusCode, 400, 'the waiting request is answered once');
    t.notMatch(again.body, /SAMLResponse/);
  },
);

t.test('a waiting request altered in its cookie is refused', async (t) => {
  const { app } = await setup(t);
  const res = await app.inject({ method: 'GET', url: '/sso/saml/resume', headers: { cookie: 'sso_saml_pending=eyJlIjoieCJ9.forged' } });
  t.equal(res.statusCode, 400);
  t.notMatch(res.body, /SAMLResponse/);
});

t.test('ForceAuthn does not let the existing session answer: the person signs in again first (Core §3.4.1)', async (t) => {
  const { app, idpCert } = await setup(t);
  const browser = await signedInBrowser(app);
  const saml = nodeSamlSp(idpCert, { forceAuthn: true });
  const started = await browser.request(app, 'GET', localPath(await saml.getAuthorizeUrlAsync('', undefined, {})));
  t.equal(started.statusCode, 303);
  t.notMatch(started.body, /SAMLResponse/);
  t.match(String(started.headers.location), /\/sso\/account\/sign-in\?notice=reauth$/);
  const res = await signInThere(app, browser, String(started.headers.location));
  const { profile } = await saml.validatePostResponseAsync({ SAMLResponse: formOf(res.body).SAMLResponse! });
  t.equal(profile!.nameID, ALICE.username);
});

t.test('a persistent NameID is stable for the SP and is not the user id (Core §8.3.7)', async (t) => {
  const { app, idpCert } = await setup(t, { name_id_format: 'persistent' });
  const browser = await signedInBrowser(app);
  const ids: string[] = [];
  for (let i = 0; i < 2; i += 1) {
    const saml = nodeSamlSp(idpCert);
    const res = await browser.request(app, 'GET', localPath(await saml.getAuthorizeUrlAsync('', undefined, {})));
    const { profile } = await saml.validatePostResponseAsync({ SAMLResponse: formOf(res.body).SAMLResponse! });
    ids.push(profile!.nameID);
  }
  t.equal(ids[0], ids[1]);
  t.notMatch(ids[0]!, /^[0-9a-f-]{36}$/, 'not a user id');
});

t.test('IdP-initiated at /saml/init only for an SP that allows it (Profiles §4.1.5)', async (t) => {
  const { app, db, idpCert } = await setup(t, { idp_initiated: false });
  const browser = await signedInBrowser(app);
  const refused = await browser.request(app, 'GET', `/sso/saml/init?sp=${encodeURIComponent(SP_ENTITY_ID)}`);
  t.equal(refused.statusCode, 400);
  t.notMatch(refused.body, /SAMLResponse/);
  await upsertSamlServiceProviderRow(db, spColumns({ metadata_xml: await spMetadata(), idp_initiated: true }), new Date());
  const res = await browser.request(app, 'GET', `/sso/saml/init?sp=${encodeURIComponent(SP_ENTITY_ID)}&RelayState=home`);
  t.equal(res.statusCode, 200);
  const form = formOf(res.body);
  t.equal(form.action, SP_ACS);
  t.equal(form.RelayState, 'home');
  const saml = nodeSamlSp(idpCert, { validateInResponseTo: ValidateInResponseTo.never });
  const { profile } = await saml.validatePostResponseAsync({ SAMLResponse: form.SAMLResponse! });
  t.equal(profile!.nameID, ALICE.username);
  t.equal((await browser.request(app, 'GET', '/sso/saml/init?sp=https%3A%2F%2Fnobody.example')).statusCode, 400);
});

t.test('an SP set to encrypted assertions gets an EncryptedAssertion it decrypts with its key (Core §2.3.4)', async (t) => {
  const { app, db, idpCert } = await setup(t);
  const encrypting = (await spMetadata()).replace('use="signing"', 'use="encryption"');
  await upsertSamlServiceProviderRow(
    db,
    spColumns({ metadata_xml: encrypting, encrypt_assertion: true, name_id_format: 'email' }),
    new Date(),
  );
  const browser = await signedInBrowser(app);
  const saml = nodeSamlSp(idpCert, { decryptionPvk: (await testSpKey()).privateKeyPem });
  const res = await browser.request(app, 'GET', localPath(await saml.getAuthorizeUrlAsync('', undefined, {})));
  const form = formOf(res.body);
  const xml = Buffer.from(form.SAMLResponse!, 'base64').toString('utf8');
  t.match(xml, /<saml:EncryptedAssertion/);
  t.notMatch(xml, ALICE.email, 'nothing of the person in the clear');
  const { profile } = await saml.validatePostResponseAsync({ SAMLResponse: form.SAMLResponse! });
  t.equal(profile!.nameID, ALICE.email);
});

t.test('an SP limited to groups gets a signed RequestDenied for a person outside them, as clients are limited', async (t) => {
  const { app, db, idpCert } = await setup(t);
  await db
    .insertInto('groups')
    .values({
      id: '00000000-0000-4000-8000-000000000001',
      name: 'staff',
      description: null,
      created_at: new Date(),
      updated_at: new Date(),
    })
    .execute();
  await upsertSamlServiceProviderRow(db, { ...spColumns({ metadata_xml: await spMetadata(), allowed_groups: ['staff'] }) }, new Date());
  const browser = await signedInBrowser(app);
  const saml = nodeSamlSp(idpCert);
  const res = await browser.request(app, 'GET', localPath(await saml.getAuthorizeUrlAsync('', undefined, {})));
  const xml = Buffer.from(formOf(res.body).SAMLResponse!, 'base64').toString('utf8');
  t.match(xml, 'urn:oasis:names:tc:SAML:2.0:status:RequestDenied');
  t.notMatch(xml, /Assertion/, 'no assertion');
  await t.rejects(saml.validatePostResponseAsync({ SAMLResponse: formOf(res.body).SAMLResponse! }), /RequestDenied|Responder/);
});

t.test('a session signed in with a password alone does not answer a request for MultiFactor (AuthnContext §3.4)', async (t) => {
  const { app, idpCert } = await setup(t);
  const browser = await signedInBrowser(app);
  const saml = nodeSamlSp(idpCert, {
    authnContext: ['urn:oasis:names:tc:SAML:2.0:ac:classes:MultiFactor'],
    racComparison: 'exact',
  });
  const res = await browser.request(app, 'GET', localPath(await saml.getAuthorizeUrlAsync('', undefined, {})));
  t.equal(res.statusCode, 303, 'sent to sign in again');
  t.notMatch(res.body, /SAMLResponse/);
  const passwordOk = nodeSamlSp(idpCert, {
    authnContext: ['urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport'],
  });
  const ok = await browser.request(app, 'GET', localPath(await passwordOk.getAuthorizeUrlAsync('', undefined, {})));
  const { profile } = await passwordOk.validatePostResponseAsync({ SAMLResponse: formOf(ok.body).SAMLResponse! });
  t.ok(profile, 'PasswordProtectedTransport is what the session achieved');
});

t.test('a signed HTTP-POST request altered after signing is refused (Core §5.4)', async (t) => {
  const { app, idpCert } = await setup(t, {}, { authnRequestsSigned: true });
  const browser = await signedInBrowser(app);
  const saml = nodeSamlSp(idpCert, {
    privateKey: (await testSpKey()).privateKeyPem,
    authnRequestBinding: 'HTTP-POST',
    signatureAlgorithm: 'sha256',
  });
  const html = await saml.getAuthorizeFormAsync('', undefined, {});
  const signedXml = decodeRedirectMessage(/name="SAMLRequest" value="([^"]+)"/.exec(html)![1]!);
  const altered = signedXml.replace(/IssueInstant="[^"]+"/, 'IssueInstant="2000-01-01T00:00:00Z"');
  t.not(altered, signedXml);
  const res = await browser.request(app, 'POST', '/sso/saml/sso', { SAMLRequest: encodePostMessage(altered) });
  t.equal(res.statusCode, 400);
  t.notMatch(res.body, /SAMLResponse/);
});
