// mod_auth_mellon asking for MultiFactor (MellonAuthnContextClassRef; SAML AuthnContext 2.0 §3.4): a person with a
// second factor goes from the password to it and mellon lets them in with an assertion saying MultiFactor; a person
// with none is not shown an error page at the provider: mellon gets a signed NoAuthnContext response at its ACS (Core
// §3.3.2.2.1), and lets nobody in.
import t from 'tap';
import { spColumns } from '../../../src/domain/saml/idp/service-providers.js';
import { upsertSamlServiceProviderRow } from '../../../src/storage/saml-service-providers.js';
import { findUserByUsername } from '../../../src/storage/users.js';
import { ALICE, BOB } from '../../helpers/app.js';
import { CapturingNotifier } from '../../helpers/notifier.js';
import { CookieJar } from '../../helpers/cookie-jar.js';
import { listenTestApp } from '../../helpers/listening.js';
import { MELLON_MISSING, readShownAttributes, startMellonSp } from '../../helpers/saml/mellon-sp.js';
import { samlBrowse } from '../../helpers/saml/saml-browse.js';

const MULTI_FACTOR = 'urn:oasis:names:tc:SAML:2.0:ac:classes:MultiFactor';

const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];

if (MELLON_MISSING) {
  t.test('mellon asks for MultiFactor', { skip: MELLON_MISSING }, () => {});
} else {
  t.test('mellon asking for MultiFactor gets a signed NoAuthnContext for a person with no second factor (Core §3.3.2.2.1)', async (t) => {
    const { app, db, issuer } = await listenTestApp(t);
    const idpMetadataXml = (await app.inject({ method: 'GET', url: '/sso/saml/metadata' })).body;
    const sp = await startMellonSp({ idpMetadataXml, certificateName: 'mellon-sp', authnContextClassRefs: [MULTI_FACTOR] });
    t.teardown(sp.stop);
    await upsertSamlServiceProviderRow(db, spColumns({ metadata_xml: sp.metadataXml }), new Date());
    const page = await samlBrowse(sp.protectedUrl, new CookieJar(), { user: { username: BOB.username, password: BOB.password } });
    const [request, response] = page.messages;
    t.match(request, { name: 'SAMLRequest', destination: `${issuer}/saml/sso` });
    t.match(request!.xml, MULTI_FACTOR, "mellon's AuthnRequest asks for MultiFactor");
    t.match(response, { name: 'SAMLResponse', binding: 'post', destination: `${sp.baseUrl}/mellon/postResponse` }, 'an answer at the ACS', {
      steps: page.steps,
    });
    t.match(response!.xml, 'urn:oasis:names:tc:SAML:2.0:status:NoAuthnContext');
    t.notMatch(response!.xml, /<(\w+:)?Assertion\b/, 'no assertion');
    t.not(page.status, 200, 'mellon lets nobody in', { mellon: sp.output() });
  });

  t.test('mellon asking for MultiFactor lets a person in after the password and the second factor (AuthnContext §3.4)', async (t) => {
    const notifier = new CapturingNotifier();
    const { app, db, issuer } = await listenTestApp(t, { notifier });
    const aliceId = (await findUserByUsername(db, ALICE.username))!.id;
    const idpMetadataXml = (await app.inject({ method: 'GET', url: '/sso/saml/metadata' })).body;
    const sp = await startMellonSp({ idpMetadataXml, certificateName: 'mellon-sp', authnContextClassRefs: [MULTI_FACTOR] });
    t.teardown(sp.stop);
    await upsertSamlServiceProviderRow(db, spColumns({ metadata_xml: sp.metadataXml }), new Date());
    const jar = new CookieJar();
    const codePage = await samlBrowse(sp.protectedUrl, jar, { user: { username: ALICE.username, password: ALICE.password } });
    t.equal(codePage.url.pathname, '/sso/sign-in/verify', 'the password went on to the second factor', { steps: codePage.steps });
    t.match(codePage.body, /name="code"/);
    const verify = new URL(`${issuer}/sign-in/verify`);
    const posted = await fetch(verify, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header(verify) },
      body: new URLSearchParams({ csrf: field(codePage.body, 'csrf') ?? '', code: await notifier.code(aliceId) }).toString(),
    });
    jar.store(verify, posted);
    t.equal(posted.status, 303);
    const page = await samlBrowse(new URL(posted.headers.get('location')!, verify), jar);
    t.equal(page.status, 200, 'mellon let the person in', { steps: page.steps, mellon: sp.output() });
    const response = page.messages.find((m) => m.name === 'SAMLResponse')!;
    t.match(response.xml, new RegExp(`AuthnContextClassRef>${MULTI_FACTOR}<`), 'the assertion says MultiFactor');
    t.equal(readShownAttributes(page.body).get('MELLON_IDP'), issuer);
  });
}
