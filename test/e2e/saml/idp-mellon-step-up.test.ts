// mod_auth_mellon asking for MultiFactor (MellonAuthnContextClassRef; SAML AuthnContext 2.0 §3.4): a person with no
// second factor to answer with is not shown an error page at the provider; mellon gets a signed NoAuthnContext
// response at its ACS (Core §3.3.2.2.1), and lets nobody in.
import t from 'tap';
import { spColumns } from '../../../src/domain/saml/idp/service-providers.js';
import { upsertSamlServiceProviderRow } from '../../../src/storage/saml-service-providers.js';
import { BOB } from '../../helpers/app.js';
import { CookieJar } from '../../helpers/cookie-jar.js';
import { listenTestApp } from '../../helpers/listening.js';
import { MELLON_MISSING, startMellonSp } from '../../helpers/saml/mellon-sp.js';
import { samlBrowse } from '../../helpers/saml/saml-browse.js';

const MULTI_FACTOR = 'urn:oasis:names:tc:SAML:2.0:ac:classes:MultiFactor';

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
}
