// A saml connection whose IdP takes AuthnRequests over HTTP-POST only (issue 39, gap g): the button answers with the
// auto-submitting form page the other POST bindings use, its SAMLRequest the base64 of an AuthnRequest XML-signed
// with our key (SAML Bindings §3.5.4), and the Response to it signs the person in; an IdP offering both bindings is
// still sent the request over HTTP-Redirect.
import { DOMParser } from '@xmldom/xmldom';
import t from 'tap';
import { SignedXml } from 'xml-crypto';
import { followToClient, pressConnectionButton, redeemForIdToken } from '../../helpers/connection-flow.js';
import { Browser, hiddenField } from '../../helpers/flow.js';
import { assertionXml, base64, idpMetadata, IDP_SSO_URL, responseXml, signElement } from '../../helpers/saml-sp-idp.js';
import { ACS, SP_ENTITY_ID, postToAcs, samlApp, testKeys } from '../../helpers/saml-sp-flow.js';

const DSIG = 'http://www.w3.org/2000/09/xmldsig#';

async function postOnlyMetadata(): Promise<string> {
  const { idp } = await testKeys();
  return idpMetadata(idp).replace(/<md:SingleSignOnService Binding="[^"]+HTTP-Redirect"[^>]*\/>/, '');
}

t.test('an IdP with only an HTTP-POST SingleSignOnService is sent an XML-signed AuthnRequest in a form (Bindings 3.5)', async (t) => {
  const { server, keys } = await samlApp(t, { saml_metadata: await postOnlyMetadata() });
  const browser = new Browser();
  const { started } = await pressConnectionButton(server, 'corp', { browser, scope: 'openid email' });
  t.equal(started.statusCode, 200, 'a page, not a redirect');
  t.match(String(started.headers['content-security-policy']), /script-src 'sha256-/, 'the form page CSP allows its one script');
  t.notMatch(String(started.headers['content-security-policy']), /unsafe-inline/);
  t.equal(started.headers['cache-control'], 'no-store');
  const body = started.body;
  t.match(body, `<form method="post" action="${IDP_SSO_URL}/post">`, 'posted to the POST endpoint of the metadata');
  const samlRequest = hiddenField(body, 'SAMLRequest');
  const relayState = hiddenField(body, 'RelayState');
  t.ok(relayState.length > 0 && relayState.length <= 80, 'Bindings 3.5.3: a RelayState of at most 80 bytes');
  // Bindings 3.5.4: the message is base64 of the XML itself, not DEFLATE-compressed as over HTTP-Redirect.
  const xml = Buffer.from(samlRequest, 'base64').toString('utf8');
  t.match(xml, /^(<\?xml [^>]*\?>)?<samlp:AuthnRequest /, 'the XML itself, not deflated');
  t.match(xml, `</saml:Issuer><Signature xmlns="${DSIG}">`, 'Core 5.4.1: the Signature right after the Issuer');
  t.match(xml, `Destination="${IDP_SSO_URL}/post"`, 'Bindings 3.5.5.2: Destination is where it is posted');
  t.match(xml, `AssertionConsumerServiceURL="${ACS}"`);
  t.match(xml, `<saml:Issuer xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">${SP_ENTITY_ID}</saml:Issuer>`);
  // Bindings 3.5.4 / Core 5: the signature is in the XML (enveloped, over the request's ID), checked with our certificate.
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const signatures = doc.getElementsByTagNameNS(DSIG, 'Signature');
  t.equal(signatures.length, 1, 'one ds:Signature');
  const verifier = new SignedXml({ publicCert: keys.sp.certificatePem });
  verifier.loadSignature(signatures[0]!);
  t.ok(verifier.checkSignature(xml), 'the signature verifies with our SP certificate');
  const requestId = /ID="([^"]+)"/.exec(xml)![1]!;
  t.equal(verifier.getSignedReferences().length, 1, 'one reference, the request itself');
  t.match(xml, `URI="#${requestId}"`, 'the reference names the request');
  const other = new SignedXml({ publicCert: keys.other.certificatePem });
  other.loadSignature(signatures[0]!);
  t.throws(() => other.checkSignature(xml), 'another key does not verify it');
  t.notMatch(body, 'Signature=', 'no query signature');
});

t.test('the Response to a POST-sent AuthnRequest signs the person in (Profiles 4.1.4)', async (t) => {
  const { server, keys } = await samlApp(t, { saml_metadata: await postOnlyMetadata() });
  const browser = new Browser();
  const { started, interaction, verifier } = await pressConnectionButton(server, 'corp', { browser, scope: 'openid email' });
  const xml = Buffer.from(hiddenField(started.body, 'SAMLRequest'), 'base64').toString('utf8');
  const requestId = /ID="([^"]+)"/.exec(xml)![1]!;
  const assertion = assertionXml({
    audience: SP_ENTITY_ID,
    recipient: ACS,
    inResponseTo: requestId,
    nameIdXml: 'post-4711',
    attributes: { email: ['posted@corp.example'] },
  });
  const response = responseXml({
    destination: ACS,
    inResponseTo: requestId,
    inner: signElement(assertion, /ID="([^"]+)"/.exec(assertion)![1]!, keys.idp),
  });
  const acs = await postToAcs(server, browser, base64(response), hiddenField(started.body, 'RelayState'));
  const claims = await redeemForIdToken(server, await followToClient(server, { browser, interaction }, acs), verifier);
  t.equal(claims?.email, 'posted@corp.example', 'signed in with the mapped claims');
});

t.test('an IdP offering both bindings is sent the AuthnRequest over HTTP-Redirect (Bindings 3.4)', async (t) => {
  const { server } = await samlApp(t);
  const { started } = await pressConnectionButton(server, 'corp', { scope: 'openid email' });
  t.equal(started.statusCode, 303);
  const location = new URL(String(started.headers.location));
  t.equal(`${location.origin}${location.pathname}`, IDP_SSO_URL, 'the Redirect endpoint, though POST is listed first');
  t.ok(location.searchParams.get('Signature'), 'query-signed');
});
