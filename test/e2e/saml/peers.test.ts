// The SAML peers the SAML tests run (test/helpers/saml/), proven against each other before anyone relies on them:
// Apache with mod_auth_mellon as the SP signs a person in through Debian's SimpleSAMLphp as the IdP, SP-initiated
// over the HTTP-Redirect binding with the response over HTTP-POST (SAML 2.0 Profiles 4.1), shows the NameID and the
// attributes, and single logout from the SP (Profiles 4.4) ends the session at both. No provider is involved.
import t, { type Test } from 'tap';
import { withChromium } from '../../helpers/chromium.js';
import { CookieJar } from '../../helpers/cookie-jar.js';
import { MELLON_MISSING, readShownAttributes, startMellonSp, type MellonSp } from '../../helpers/saml/mellon-sp.js';
import { chromiumSamlVisit, samlBrowse } from '../../helpers/saml/saml-browse.js';
import { ALICE_SAML, BOB_SAML, SIMPLESAMLPHP_MISSING, startSimpleSamlIdp } from '../../helpers/saml/simplesaml-idp.js';

const missing = MELLON_MISSING ?? SIMPLESAMLPHP_MISSING;
if (missing) {
  // A skipped test, not a plan of 0: in a test group this file's `t` is the whole process's (test/helpers/test-group.ts).
  t.test('the SAML peers against each other', { skip: missing }, () => {});
} else {
  // The IdP first: mellon reads the IdP's metadata when it starts; SimpleSAMLphp learns the SP's on its next request.
  const idp = await startSimpleSamlIdp();
  t.teardown(idp.stop);
  const sps: MellonSp[] = [];
  /** An SP stopped when `owner` ends: the file's top level, or the one test that needs it. */
  const startSp = async (owner: Test, nameIdFormat?: 'transient' | 'persistent' | 'email') => {
    const sp = await startMellonSp({ idpMetadataXml: idp.metadataXml, nameIdFormat, certificateName: 'mellon-sp' });
    owner.teardown(sp.stop);
    idp.addServiceProvider(sp.metadataXml);
    sps.push(sp);
    return sp;
  };
  const sp = await startSp(t);
  /** The peers' logs, when a check fails. */
  const logs = () => ({ mellon: sps.map((one) => one.output()).join('\n'), simplesamlphp: idp.output() });

  t.test('mellon signs a person in through SimpleSAMLphp and sees the NameID and every attribute', async (t) => {
    const jar = new CookieJar();
    const page = await samlBrowse(sp.protectedUrl, jar, { user: ALICE_SAML });
    t.equal(page.status, 200, 'the protected page', { steps: page.steps, ...logs() });
    t.equal(page.url.href, sp.protectedUrl, 'back where the person started');
    const [request, response] = page.messages;
    t.match(
      request,
      { name: 'SAMLRequest', binding: 'redirect', destination: `${idp.baseUrl}/saml2/idp/SSOService.php` },
      'Profiles 4.1.3.3: the AuthnRequest goes to the IdP over HTTP-Redirect',
    );
    t.match(request?.xml, /<samlp:AuthnRequest\b/, 'an AuthnRequest');
    t.match(request?.xml, `urn:oasis:names:tc:SAML:2.0:nameid-format:transient`, 'mellon asks for a transient NameID');
    t.match(
      response,
      { name: 'SAMLResponse', binding: 'post', destination: `${sp.baseUrl}/mellon/postResponse` },
      'Profiles 4.1.3.5: the Response comes back over HTTP-POST to the ACS',
    );
    t.match(response?.xml, /<saml:Assertion\b[\s\S]*<ds:Signature\b/, 'the assertion is signed');

    const shown = readShownAttributes(page.body);
    t.match(shown.get('MELLON_NAME_ID'), /^_[0-9a-f]{20,}$/, 'a transient NameID: random, SimpleSAMLphp style');
    t.equal(shown.get('REMOTE_USER'), shown.get('MELLON_NAME_ID'), 'mellon signs the person in under the NameID');
    t.equal(shown.get('MELLON_IDP'), idp.entityId, 'the issuing IdP');
    t.equal(shown.get('MELLON_mail'), ALICE_SAML.attributes.mail![0], 'each attribute as MELLON_<name>');
    t.equal(shown.get('MELLON_givenName'), 'Alice', 'givenName');
    t.equal(shown.get('MELLON_sn'), 'Assertion', 'sn');
    t.equal(shown.get('MELLON_eduPersonPrincipalName'), 'alice-saml@example.test', 'eduPersonPrincipalName');
    t.equal(shown.get('MELLON_groups_0'), 'staff', 'each value of a repeated attribute');
    t.equal(shown.get('MELLON_groups_1'), 'admins', 'the second value');

    const again = await samlBrowse(sp.protectedUrl, jar);
    t.equal(again.status, 200, 'the SP session holds');
    t.same(again.messages, [], 'without asking the IdP again');
  });

  t.test('an existing IdP session signs the person in at a second SP without a form, under a persistent NameID', async (t) => {
    const jar = new CookieJar();
    await samlBrowse(sp.protectedUrl, jar, { user: ALICE_SAML });
    const other = await startSp(t, 'persistent');
    const page = await samlBrowse(other.protectedUrl, jar);
    t.equal(page.status, 200, 'signed in without a password', { steps: page.steps, ...logs() });
    t.match(page.messages[0]?.xml, 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent', 'the format of the SP metadata is asked for');
    const shown = readShownAttributes(page.body);
    t.match(shown.get('MELLON_NAME_ID'), /^[0-9a-f]{40}$/, 'SimpleSAMLphp derives a persistent NameID from uid');
    t.equal(shown.get('MELLON_mail'), 'alice-saml@example.test', 'the same attributes');
  });

  t.test('an SP whose metadata asks for emailAddress gets the mail attribute as its NameID', async (t) => {
    const jar = new CookieJar();
    const byEmail = await startSp(t, 'email');
    const page = await samlBrowse(byEmail.protectedUrl, jar, { user: BOB_SAML });
    t.equal(page.status, 200, 'signed in', { steps: page.steps, ...logs() });
    t.match(page.messages[0]?.xml, 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress', 'mellon asks for emailAddress');
    t.equal(readShownAttributes(page.body).get('MELLON_NAME_ID'), 'bob-saml@example.test', 'the NameID is the mail attribute');
  });

  t.test('an IdP that signs the response and encrypts the assertion to the SP key still signs the person in', async (t) => {
    const strict = await startSimpleSamlIdp({ signResponse: true, encryptAssertion: true });
    t.teardown(strict.stop);
    const encrypting = await startMellonSp({ idpMetadataXml: strict.metadataXml, encryptionKey: true });
    t.teardown(encrypting.stop);
    strict.addServiceProvider(encrypting.metadataXml);
    const page = await samlBrowse(encrypting.protectedUrl, new CookieJar(), { user: ALICE_SAML });
    t.equal(page.status, 200, 'signed in', { steps: page.steps, mellon: encrypting.output(), simplesamlphp: strict.output() });
    const response = page.messages[1]?.xml ?? '';
    t.match(response, /<samlp:Response\b[^>]*>\s*<saml:Issuer\b[^<]*<\/saml:Issuer>\s*<ds:Signature\b/, 'the Response itself is signed');
    t.match(response, '<saml:EncryptedAssertion>', 'SAML Core 2.3.4: the assertion travels encrypted');
    t.notMatch(response, 'alice-saml@example.test', 'no attribute in the clear');
    t.equal(readShownAttributes(page.body).get('MELLON_mail'), 'alice-saml@example.test', 'mellon decrypts it with its own key');
  });

  t.test('single logout from the SP ends the session at the SP and at the IdP', async (t) => {
    const jar = new CookieJar();
    const signedIn = await samlBrowse(sp.protectedUrl, jar, { user: ALICE_SAML });
    t.equal(signedIn.status, 200, 'signed in', { steps: signedIn.steps, ...logs() });

    const loggedOut = await samlBrowse(sp.logoutUrl, jar);
    t.equal(loggedOut.url.href, sp.loggedOutUrl, 'mellon returns to its ReturnTo once the IdP has answered', {
      steps: loggedOut.steps,
      ...logs(),
    });
    const [request, response] = loggedOut.messages;
    t.match(
      request,
      { name: 'SAMLRequest', binding: 'redirect', destination: `${idp.baseUrl}/saml2/idp/SingleLogoutService.php` },
      'Profiles 4.4.3.1: the LogoutRequest goes to the IdP',
    );
    t.match(request?.xml, /<samlp:LogoutRequest\b/, 'a LogoutRequest');
    t.match(
      response,
      { name: 'SAMLResponse', destination: `${sp.baseUrl}/mellon/logout` },
      'Profiles 4.4.3.4: the LogoutResponse comes back to the SP',
    );
    t.match(response?.xml, /<samlp:LogoutResponse\b[\s\S]*urn:oasis:names:tc:SAML:2.0:status:Success/, 'saying Success');

    const after = await samlBrowse(sp.protectedUrl, jar);
    t.equal(after.messages[0]?.name, 'SAMLRequest', 'the SP asks the IdP again');
    t.match(after.body, /type="password"/, 'and the IdP asks for the password again: its session ended too');
  });

  t.test('the same sign-in and logout in Chromium, whose cookies mellon keeps on plain http', async (t) => {
    await withChromium(t, async (browser) => {
      const context = await browser.newContext();
      t.teardown(() => context.close());
      const page = await context.newPage();
      const text = await chromiumSamlVisit(page, sp.protectedUrl, { user: ALICE_SAML, arrived: (url) => url.href === sp.protectedUrl });
      t.equal(readShownAttributes(text).get('MELLON_mail'), 'alice-saml@example.test', 'signed in', logs());
      const loggedOut = await chromiumSamlVisit(page, sp.logoutUrl, { arrived: (url) => url.href === sp.loggedOutUrl });
      t.match(loggedOut, 'Signed out of the SP.', 'logged out');
    });
  });
}
