// Debian's SimpleSAMLphp as a real SAML identity provider configured as a `saml` connection from its own metadata
// (issue 39): a person signs in on SimpleSAMLphp's form and lands at an OIDC relying party (openid-client) with the
// claims the connection mapped from SimpleSAMLphp's attributes in the ID token. SP-initiated, AuthnRequest over
// HTTP-Redirect (signed, and SimpleSAMLphp told to check it), Response over HTTP-POST (SAML 2.0 Profiles 4.1).
import t from 'tap';
import { CookieJar } from '../../helpers/cookie-jar.js';
import { redeem } from '../../helpers/relying-party.js';
import { samlBrowse } from '../../helpers/saml/saml-browse.js';
import { consentIfAsked, jarFetch, pressUniButton, simpleSamlConnection } from '../../helpers/saml/simplesaml-connection.js';
import { ALICE_SAML, SIMPLESAMLPHP_MISSING } from '../../helpers/saml/simplesaml-idp.js';

if (SIMPLESAMLPHP_MISSING) {
  // A skipped test, not a plan of 0: in a test group this file's `t` is the whole process's (test/helpers/test-group.ts).
  t.test('a saml connection to SimpleSAMLphp', { skip: SIMPLESAMLPHP_MISSING }, () => {});
} else {
  t.test('a person signs in through SimpleSAMLphp and openid-client gets the mapped claims in the ID token', async (t) => {
    const connection = await simpleSamlConnection(t, { idpCertificateName: 'simplesaml-idp-for-sp', spCertificateName: 'provider-sp' });
    const { idp, server } = connection;

    async function signIn(jar: CookieJar) {
      const send = jarFetch(jar);
      const { attempt, signInPage, started } = await pressUniButton(connection, send);
      t.match(signInPage, 'University', 'the connection is a button on the sign-in page');
      const atIdp = new URL(started.headers.get('location')!);
      // SimpleSAMLphp's sign-in form, then its auto-posted Response to our ACS, then our pages.
      const page = await samlBrowse(atIdp, jar, { user: ALICE_SAML });
      const { callback, consented } = await consentIfAsked(connection, page, send);
      return { attempt, callback, pages: consented ? ['consent'] : [], page, atIdp };
    }

    const first = await signIn(new CookieJar());
    t.equal(first.atIdp.origin, idp.baseUrl, 'the button sends the browser to SimpleSAMLphp');
    const [request, response] = first.page.messages;
    t.match(request, { name: 'SAMLRequest', binding: 'redirect' }, 'Profiles 4.1.3.3: the AuthnRequest over HTTP-Redirect');
    t.match(response, { name: 'SAMLResponse', binding: 'post', destination: `${server.issuer}/connections/uni/saml/acs` });
    t.match(response?.xml, 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent', 'the persistent NameID our SP metadata asks for');
    t.same(first.pages, ['consent'], { steps: first.page.steps, body: first.page.body.slice(0, 500), simplesamlphp: idp.output() });
    if (!first.callback) throw new Error('no callback');
    const tokens = await redeem(first.attempt, first.callback);
    const claims = tokens.claims();
    if (!claims) throw new Error('no ID token');
    t.equal(claims.iss, server.issuer);
    t.equal(claims.email, ALICE_SAML.attributes.mail![0], 'OIDC Core 5.1 email from the mail attribute');
    t.equal(claims.name, 'Alice Assertion', 'name from displayName');
    t.same(claims.amr, ['fed']);

    const again = await signIn(new CookieJar());
    t.ok(again.callback, 'the second sign-in goes straight to the client (consent remembered)');
    if (again.callback)
      t.equal((await redeem(again.attempt, again.callback)).claims()?.sub, claims.sub, 'the same sub: the persistent NameID is linked');
  });
}
