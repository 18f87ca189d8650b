// Debian's SimpleSAMLphp as an IdP whose metadata, as the connection is given it, lists only its HTTP-POST
// SingleSignOnService (issue 39, gap g): the connection's button answers with our auto-submitting form, the browser
// posts the XML-signed AuthnRequest to SimpleSAMLphp (told to check request signatures: validate.authnrequest), the
// person signs in there and lands at the relying party with a code. A request altered after signing is refused there.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import t from 'tap';
import type { SeedFile } from '../../../src/domain/admin/seed.js';
import type { SamlCredentials } from '../../../src/domain/saml/credentials.js';
import { FIXTURES } from '../../helpers/app.js';
import { CookieJar } from '../../helpers/cookie-jar.js';
import { listenTestApp } from '../../helpers/listening.js';
import { discover, prepareAttempt, redeem } from '../../helpers/relying-party.js';
import { rsaCertificate } from '../../helpers/rsa-certificate.js';
import { decodeHtml, readForms, samlBrowse } from '../../helpers/saml/saml-browse.js';
import { ALICE_SAML, SIMPLESAMLPHP_MISSING, startSimpleSamlIdp } from '../../helpers/saml/simplesaml-idp.js';

if (SIMPLESAMLPHP_MISSING) {
  t.test('a saml connection to SimpleSAMLphp over HTTP-POST', { skip: SIMPLESAMLPHP_MISSING }, () => {});
} else {
  t.test('SimpleSAMLphp checks the signature of an AuthnRequest posted to it and signs the person in (Bindings 3.5)', async (t) => {
    const idp = await startSimpleSamlIdp({ validateAuthnRequest: true, certificateName: 'simplesaml-idp-for-sp-post' });
    t.teardown(idp.stop);
    const sp = rsaCertificate('provider-sp-post');
    const pair = { privateKeyPem: sp.key, certificatePem: sp.cert };
    const credentials: SamlCredentials = { signing: async () => pair, published: async () => [sp.cert], decryption: async () => [pair] };
    const rp = createServer((_req, res) => res.end('back at the relying party'));
    await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
    t.teardown(() => new Promise<void>((resolve) => rp.close(() => resolve())));
    const redirectUri = `http://127.0.0.1:${(rp.address() as AddressInfo).port}/cb`;
    const client = {
      client_id: 'uni-app',
      client_secret: 'uni-app-secret-0123456789',
      client_name: 'Uni App',
      redirect_uris: [redirectUri],
    };
    // SimpleSAMLphp serves both bindings; the connection is given its metadata with the Redirect endpoint taken out.
    const postOnly = idp.metadataXml.replace(/<md:SingleSignOnService Binding="[^"]+HTTP-Redirect"[^>]*\/>/g, '');
    t.notMatch(postOnly, /SingleSignOnService Binding="[^"]+HTTP-Redirect"/, 'the metadata lists no Redirect SSO endpoint');
    t.match(postOnly, /SingleSignOnService Binding="[^"]+HTTP-POST"/);
    const seed = {
      ...FIXTURES,
      clients: [...FIXTURES.clients, client],
      connections: [{ id: 'uni', kind: 'saml', display_name: 'University', saml_metadata: postOnly }],
    } as unknown as SeedFile;
    const server = await listenTestApp(t, { seed, samlCredentials: credentials, env: { RISK_WEIGHTS: 'AUTOMATION=0' } });
    idp.addServiceProvider(await (await fetch(`${server.issuer}/connections/uni/saml/metadata`)).text());
    const config = await discover(server, client.client_id, oidc.ClientSecretBasic(client.client_secret), client.client_secret);

    async function toIdp(jar: CookieJar, alter?: (xml: string) => string) {
      const attempt = await prepareAttempt(config, redirectUri);
      const send = async (url: URL, form?: Record<string, string> | URLSearchParams) => {
        const headers: Record<string, string> = {};
        const cookie = jar.header(url);
        if (cookie) headers.cookie = cookie;
        if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
        const response = await fetch(url, {
          method: form ? 'POST' : 'GET',
          headers,
          body: form && new URLSearchParams(form).toString(),
          redirect: 'manual',
        });
        jar.store(url, response);
        return response;
      };
      const field = (html: string, name: string) => decodeHtml(new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '');
      const toSignIn = await send(attempt.authorizationUrl);
      const signInPage = await (await send(new URL(toSignIn.headers.get('location')!, attempt.authorizationUrl))).text();
      const started = await send(new URL(`${server.issuer}/connections/uni/start`), {
        interaction: field(signInPage, 'interaction'),
        csrf: field(signInPage, 'csrf'),
      });
      const formPage = await started.text();
      const [form] = readForms(formPage, new URL(`${server.issuer}/connections/uni/start`));
      if (!form) throw new Error(`no form: ${started.status} ${formPage.slice(0, 300)}`);
      const fields = new URLSearchParams(form.fields);
      const xml = Buffer.from(fields.get('SAMLRequest') ?? '', 'base64').toString('utf8');
      if (alter) fields.set('SAMLRequest', Buffer.from(alter(xml), 'utf8').toString('base64'));
      const atIdp = await send(form.action, fields);
      return { attempt, started, form, xml, atIdp, send, field };
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
    let callback: URL | undefined = page.url.href.startsWith(redirectUri) ? page.url : undefined;
    if (page.body.includes('name="decision"')) {
      const action = decodeHtml(/<form method="post" action="([^"]+)"/.exec(page.body)![1]!);
      const consented = await trip.send(new URL(action), { csrf: trip.field(page.body, 'csrf'), decision: 'allow' });
      callback = new URL(consented.headers.get('location')!);
    }
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
