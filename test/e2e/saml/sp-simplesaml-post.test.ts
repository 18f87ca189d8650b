// Debian's SimpleSAMLphp as an IdP whose metadata, as the connection is given it, lists only its HTTP-POST
// SingleSignOnService (issue 39, gap g): the connection's button answers with our auto-submitting form, the browser
// posts the XML-signed AuthnRequest to SimpleSAMLphp (told to check request signatures: validate.authnrequest), the
// person signs in there and lands at the relying party with a code. A request altered after signing is refused there.
import t from 'tap';
import { CookieJar } from '../../helpers/cookie-jar.js';
import { redeem } from '../../helpers/relying-party.js';
import { readForms, samlBrowse } from '../../helpers/saml/saml-browse.js';
import { consentIfAsked, jarFetch, pressUniButton, simpleSamlConnection } from '../../helpers/saml/simplesaml-connection.js';
import { ALICE_SAML, SIMPLESAMLPHP_MISSING } from '../../helpers/saml/simplesaml-idp.js';

if (SIMPLESAMLPHP_MISSING) {
  t.test('a saml connection to SimpleSAMLphp over HTTP-POST', { skip: SIMPLESAMLPHP_MISSING }, () => {});
} else {
  t.test('SimpleSAMLphp checks the signature of an AuthnRequest posted to it and signs the person in (Bindings 3.5)', async (t) => {
    // SimpleSAMLphp serves both bindings; the connection is given its metadata with the Redirect endpoint taken out.
    const connection = await simpleSamlConnection(t, {
      idpCertificateName: 'simplesaml-idp-for-sp-post',
      spCertificateName: 'provider-sp-post',
      metadata: (served) => served.replace(/<md:SingleSignOnService Binding="[^"]+HTTP-Redirect"[^>]*\/>/g, ''),
    });
    const { idp, server, connectionMetadata: postOnly } = connection;
    t.notMatch(postOnly, /SingleSignOnService Binding="[^"]+HTTP-Redirect"/, 'the metadata lists no Redirect SSO endpoint');
    t.match(postOnly, /SingleSignOnService Binding="[^"]+HTTP-POST"/);

    async function toIdp(jar: CookieJar, alter?: (xml: string) => string) {
      const send = jarFetch(jar);
      const { attempt, started } = await pressUniButton(connection, send);
      const formPage = await started.text();
      const [form] = readForms(formPage, new URL(`${server.issuer}/connections/uni/start`));
      if (!form) throw new Error(`no form: ${started.status} ${formPage.slice(0, 300)}`);
      const fields = new URLSearchParams(form.fields);
      const xml = Buffer.from(fields.get('SAMLRequest') ?? '', 'base64').toString('utf8');
      if (alter) fields.set('SAMLRequest', Buffer.from(alter(xml), 'utf8').toString('base64'));
      const atIdp = await send(form.action, fields);
      return { attempt, started, form, xml, atIdp, send };
    }

    const jar = new CookieJar();
    const trip = await toIdp(jar);
    t.equal(trip.started.status, 200, 'the button answers with the form page');
    t.equal(trip.form.method, 'POST');
    t.equal(trip.form.action.origin, idp.baseUrl, 'the form posts to SimpleSAMLphp');
    t.match(trip.xml, /<samlp:AuthnRequest [\s\S]*<Signature xmlns="http:\/\/www.w3.org\/2000\/09\/xmldsig#">/, 'XML-signed');
    t.equal(trip.atIdp.status, 303, { detail: 'SimpleSAMLphp took the signed request', log: idp.output() });
    const toForm = new URL(trip.atIdp.headers.get('location')!, trip.form.action);
    t.match(toForm.pathname, /loginuserpass/, 'and sends the person to its sign-in form');
    // On in the same browser: SimpleSAMLphp's sign-in form, its Response auto-posted to our ACS, our consent.
    const page = await samlBrowse(toForm, jar, { user: ALICE_SAML });
    const { callback } = await consentIfAsked(connection, page, trip.send);
    t.match(page.messages[0], { name: 'SAMLResponse', binding: 'post', destination: `${server.issuer}/connections/uni/saml/acs` });
    if (!callback) throw new Error(`no callback: ${page.steps.join('\n')}\n${page.body.slice(0, 500)}\n${idp.output()}`);
    const claims = (await redeem(trip.attempt, callback)).claims();
    t.equal(claims?.email, ALICE_SAML.attributes.mail![0], 'signed in with the mapped claims');

    // Bindings 3.5.4 with validate.authnrequest: a request whose signed content was changed is refused by the IdP.
    const tampered = await toIdp(new CookieJar(), (xml) => xml.replace('AllowCreate="true"', 'AllowCreate="false"'));
    t.not(tampered.xml.indexOf('AllowCreate="true"'), -1, 'the tampering changed the request');
    const refusal = await tampered.atIdp.text();
    t.equal(tampered.atIdp.status, 200, 'an error page, no redirect onwards');
    // SimpleSAMLphp drops a signature that no longer verifies and then refuses the message as unsigned.
    t.match(refusal, /no signature found on message/, 'SimpleSAMLphp refuses the altered request');
  });
}
