// The provider as a SAML identity provider for a real service provider: Debian's Apache with mod_auth_mellon signs a
// person in through the provider, SP-initiated (a signed AuthnRequest over HTTP-Redirect, the Response over HTTP-POST:
// SAML 2.0 Profiles §4.1), and sees the NameID and the attributes the provider released.
import t from 'tap';
import { spColumns } from '../../../src/domain/saml/idp/service-providers.js';
import { upsertSamlServiceProviderRow } from '../../../src/storage/saml-service-providers.js';
import { ALICE } from '../../helpers/app.js';
import { CookieJar } from '../../helpers/cookie-jar.js';
import { listenTestApp } from '../../helpers/listening.js';
import { MELLON_MISSING, readShownAttributes, startMellonSp } from '../../helpers/saml/mellon-sp.js';
import { samlBrowse } from '../../helpers/saml/saml-browse.js';

if (MELLON_MISSING) {
  t.test('mellon signs in through the provider', { skip: MELLON_MISSING }, () => {});
} else {
  t.test('mellon signs a person in through the provider, SP-initiated, and sees the NameID and attributes (Profiles §4.1)', async (t) => {
    const { app, db, issuer } = await listenTestApp(t);
    const metadata = await app.inject({ method: 'GET', url: '/sso/saml/metadata' });
    const sp = await startMellonSp({ idpMetadataXml: metadata.body, nameIdFormat: 'email', certificateName: 'mellon-sp' });
    t.teardown(sp.stop);
    await upsertSamlServiceProviderRow(
      db,
      spColumns({
        metadata_xml: sp.metadataXml,
        name_id_format: 'email',
        attributes: [
          { name: 'mail', from: 'email' },
          { name: 'givenName', from: 'given_name' },
          { name: 'uid', from: 'username' },
        ],
      }),
      new Date(),
    );
    const jar = new CookieJar();
    const page = await samlBrowse(sp.protectedUrl, jar, { user: { username: ALICE.username, password: ALICE.password } });
    t.equal(page.status, 200, 'the protected page', { steps: page.steps, mellon: sp.output() });
    const [request, response] = page.messages;
    t.match(request, { name: 'SAMLRequest', binding: 'redirect', destination: `${issuer}/saml/sso` }, 'the AuthnRequest came to us');
    // mellon's metadata says AuthnRequestsSigned: the request was accepted only with its query signature checked.
    t.match(sp.metadataXml, /AuthnRequestsSigned="true"/);
    t.match(response, { name: 'SAMLResponse', binding: 'post', destination: `${sp.baseUrl}/mellon/postResponse` });
    const shown = readShownAttributes(page.body);
    t.equal(shown.get('MELLON_NAME_ID'), ALICE.email, 'the NameID in the email format');
    t.equal(shown.get('MELLON_IDP'), issuer, 'issued by the provider');
    t.equal(shown.get('MELLON_mail'), ALICE.email);
    t.equal(shown.get('MELLON_givenName'), ALICE.given_name);
    t.equal(shown.get('MELLON_uid'), ALICE.username);

    // Profiles §4.4: mellon's signed LogoutRequest ends the provider session; our signed LogoutResponse ends mellon's.
    const loggedOut = await samlBrowse(sp.logoutUrl, jar);
    t.equal(loggedOut.url.href, sp.loggedOutUrl, 'mellon accepts the LogoutResponse and returns to its ReturnTo', {
      steps: loggedOut.steps,
      mellon: sp.output(),
    });
    t.match(loggedOut.messages[0], { name: 'SAMLRequest', destination: `${issuer}/saml/slo` }, 'the LogoutRequest came to us');
    t.match(loggedOut.messages[1], { name: 'SAMLResponse', destination: `${sp.baseUrl}/mellon/logout` });
    const again = await samlBrowse(sp.protectedUrl, jar);
    t.match(
      again.url.pathname,
      /\/sso\/account\/sign-in$/,
      'both sessions ended: the protected page needs a sign-in at the provider again',
    );
  });
}
