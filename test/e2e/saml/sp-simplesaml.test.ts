// Debian's SimpleSAMLphp as a real SAML identity provider configured as a `saml` connection from its own metadata
// (issue 39): a person signs in on SimpleSAMLphp's form and lands at an OIDC relying party (openid-client) with the
// claims the connection mapped from SimpleSAMLphp's attributes in the ID token. SP-initiated, AuthnRequest over
// HTTP-Redirect (signed, and SimpleSAMLphp told to check it), Response over HTTP-POST (SAML 2.0 Profiles 4.1).
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
import { decodeHtml, samlBrowse } from '../../helpers/saml/saml-browse.js';
import { ALICE_SAML, SIMPLESAMLPHP_MISSING, startSimpleSamlIdp } from '../../helpers/saml/simplesaml-idp.js';

if (SIMPLESAMLPHP_MISSING) {
  // A skipped test, not a plan of 0: in a test group this file's `t` is the whole process's (test/helpers/test-group.ts).
  t.test('a saml connection to SimpleSAMLphp', { skip: SIMPLESAMLPHP_MISSING }, () => {});
} else {
  t.test('a person signs in through SimpleSAMLphp and openid-client gets the mapped claims in the ID token', async (t) => {
    const idp = await startSimpleSamlIdp({ validateAuthnRequest: true, certificateName: 'simplesaml-idp-for-sp' });
    t.teardown(idp.stop);
    const sp = rsaCertificate('provider-sp');
    const pair = { privateKeyPem: sp.key, certificatePem: sp.cert };
    const credentials: SamlCredentials = { signing: async () => pair, published: async () => [sp.cert], decryption: async () => [pair] };
    // The relying party's redirect URI on loopback, where the scripted browser lands (it sends nothing off loopback).
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
    const seed = {
      ...FIXTURES,
      clients: [...FIXTURES.clients, client],
      connections: [{ id: 'uni', kind: 'saml', display_name: 'University', saml_metadata: idp.metadataXml }],
    } as unknown as SeedFile;
    const server = await listenTestApp(t, { seed, samlCredentials: credentials, env: { RISK_WEIGHTS: 'AUTOMATION=0' } });
    // SimpleSAMLphp learns our SP from the metadata we publish for the connection (SAML Metadata 2.4.4).
    const spMetadata = await fetch(`${server.issuer}/connections/uni/saml/metadata`);
    t.equal(spMetadata.status, 200);
    idp.addServiceProvider(await spMetadata.text());
    const config = await discover(server, client.client_id, oidc.ClientSecretBasic(client.client_secret), client.client_secret);

    async function signIn(jar: CookieJar) {
      const attempt = await prepareAttempt(config, redirectUri);
      const send = async (url: URL, form?: Record<string, string>) => {
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
      t.match(signInPage, 'University', 'the connection is a button on the sign-in page');
      const started = await send(new URL(`${server.issuer}/connections/uni/start`), {
        interaction: field(signInPage, 'interaction'),
        csrf: field(signInPage, 'csrf'),
      });
      const atIdp = new URL(started.headers.get('location')!);
      // SimpleSAMLphp's sign-in form, then its auto-posted Response to our ACS, then our pages.
      const page = await samlBrowse(atIdp, jar, { user: ALICE_SAML });
      const pages: string[] = [];
      let callback: URL | undefined = page.url.href.startsWith(redirectUri) ? page.url : undefined;
      if (page.body.includes('name="decision"')) {
        pages.push('consent');
        const action = decodeHtml(/<form method="post" action="([^"]+)"/.exec(page.body)![1]!);
        const consented = await send(new URL(action), { csrf: field(page.body, 'csrf'), decision: 'allow' });
        callback = new URL(consented.headers.get('location')!);
      }
      return { attempt, callback, pages, page, atIdp };
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
