// End to end through a real relying party (openid-client v6) and an IdP stand-in listening on 127.0.0.1 (issue 39):
// the provider's button sends the browser to the IdP with a signed AuthnRequest over HTTP-Redirect, the IdP checks
// its signature against our SP metadata's certificate and answers with an auto-submitting HTTP-POST form carrying a
// Response it signed with xml-crypto (attribute names as Entra ID sends them); the ACS signs the person in, and the
// relying party's ID token carries the mapped claims (OIDC Core 5.1 email, name) under our issuer.
import { createPublicKey, createVerify } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inflateRawSync } from 'node:zlib';
import t from 'tap';
import type { SeedFile } from '../../../src/domain/admin/seed.js';
import { CONFIDENTIAL, FIXTURES } from '../../helpers/app.js';
import { CookieJar } from '../../helpers/fetch-browser.js';
import { decodeEntities } from '../../helpers/form-post.js';
import { listenTestApp } from '../../helpers/listening.js';
import { discoverConfidential, prepareAttempt, redeem } from '../../helpers/relying-party.js';
import {
  assertionIdOf,
  assertionXml,
  base64,
  idpMetadata,
  IDP_ENTITY_ID,
  memoryCredentials,
  responseXml,
  signElement,
} from '../../helpers/saml-sp-idp.js';
import { testKeys } from '../../helpers/saml-sp-flow.js';

const ENTRA = {
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress': ['grace@contoso.example'],
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname': ['Grace'],
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname': ['Hopper'],
  'http://schemas.microsoft.com/identity/claims/displayname': ['Grace Hopper'],
  'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups': ['navy', 'cobol'],
};

t.test('openid-client gets an ID token with the claims a SAML IdP asserted through a saml connection', async (t) => {
  const keys = await testKeys();
  const requests: { verified: boolean; acs: string | undefined; issuer: string | undefined }[] = [];
  const idp = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const query = (req.url ?? '').split('?')[1] ?? '';
    // SAML Bindings 3.4.4.1: the signature is over the query as sent, without Signature.
    const signed = query
      .split('&')
      .filter((p) => !p.startsWith('Signature='))
      .join('&');
    const verified = createVerify('RSA-SHA256')
      .update(signed)
      .verify(createPublicKey(keys.sp.certificatePem), Buffer.from(url.searchParams.get('Signature') ?? '', 'base64'));
    const request = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
    const id = /ID="([^"]+)"/.exec(request)?.[1] ?? '';
    const acs = /AssertionConsumerServiceURL="([^"]+)"/.exec(request)?.[1];
    const spEntityId = /<saml:Issuer[^>]*>([^<]+)</.exec(request)?.[1];
    requests.push({ verified, acs, issuer: spEntityId });
    const assertion = assertionXml({
      audience: spEntityId ?? '',
      recipient: acs ?? '',
      inResponseTo: id,
      nameIdXml: 'S-1-5-21-grace',
      attributes: ENTRA,
    });
    const response = responseXml({
      inner: signElement(assertion, assertionIdOf(assertion), keys.idp),
      destination: acs ?? null,
      inResponseTo: id,
    });
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      `<html><body onload="document.forms[0].submit()"><form method="post" action="${acs}">` +
        `<input type="hidden" name="SAMLResponse" value="${base64(response)}">` +
        `<input type="hidden" name="RelayState" value="${url.searchParams.get('RelayState') ?? ''}">` +
        `</form></body></html>`,
    );
  });
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => idp.close(() => resolve())));
  const ssoUrl = `http://127.0.0.1:${(idp.address() as AddressInfo).port}/sso`;

  const seed = {
    ...FIXTURES,
    connections: [{ id: 'contoso', kind: 'saml', display_name: 'Contoso', saml_metadata: idpMetadata(keys.idp, IDP_ENTITY_ID, ssoUrl) }],
  } as unknown as SeedFile;
  const server = await listenTestApp(t, { seed, samlCredentials: memoryCredentials(keys.sp), env: { RISK_WEIGHTS: 'AUTOMATION=0' } });
  const config = await discoverConfidential(server);

  async function signIn(jar: CookieJar) {
    const attempt = await prepareAttempt(config, CONFIDENTIAL.redirect_uris[0]!);
    const send = async (url: URL, form?: Record<string, string>) => {
      const headers: Record<string, string> = {};
      const cookie = url.origin === new URL(server.baseUrl).origin ? jar.header(url) : '';
      if (cookie) headers.cookie = cookie;
      if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
      const response = await fetch(url, {
        method: form ? 'POST' : 'GET',
        headers,
        body: form && new URLSearchParams(form).toString(),
        redirect: 'manual',
      });
      if (url.origin === new URL(server.baseUrl).origin) jar.store(response);
      return response;
    };
    let response = await send(attempt.authorizationUrl);
    let url = attempt.authorizationUrl;
    const pages: string[] = [];
    for (let step = 0; step < 12; step++) {
      if (response.status === 303 || response.status === 302) {
        url = new URL(response.headers.get('location') ?? '', url);
        await response.body?.cancel();
        if (url.href.startsWith(CONFIDENTIAL.redirect_uris[0]!)) return { attempt, callback: url, pages };
        response = await send(url);
        continue;
      }
      const body = await response.text();
      if (response.status !== 200) throw new Error(`stopped at HTTP ${response.status}: ${body.slice(0, 300)}`);
      const field = (name: string) => decodeEntities(new RegExp(`name="${name}" value="([^"]*)"`).exec(body)?.[1] ?? '');
      if (body.includes('name="SAMLResponse"')) {
        pages.push('idp');
        url = new URL(decodeEntities(/action="([^"]+)"/.exec(body)![1]!));
        response = await send(url, { SAMLResponse: field('SAMLResponse'), RelayState: field('RelayState') });
      } else if (body.includes('/connections/contoso/start')) {
        pages.push('sign-in');
        url = new URL(`${server.issuer}/connections/contoso/start`);
        response = await send(url, { interaction: field('interaction'), csrf: field('csrf') });
      } else if (body.includes('name="decision"')) {
        pages.push('consent');
        url = new URL(decodeEntities(/<form method="post" action="([^"]+)"/.exec(body)![1]!));
        response = await send(url, { csrf: field('csrf'), decision: 'allow' });
      } else throw new Error(`unexpected page: ${body.slice(0, 300)}`);
    }
    throw new Error('the sign-in did not finish');
  }

  const first = await signIn(new CookieJar());
  t.same(first.pages, ['sign-in', 'idp', 'consent']);
  t.same(
    requests[0],
    {
      verified: true,
      acs: `${server.issuer}/connections/contoso/saml/acs`,
      issuer: `${server.issuer}/connections/contoso/saml/metadata`,
    },
    'the IdP got a request signed with our key, naming our ACS and entityID',
  );
  const tokens = await redeem(first.attempt, first.callback);
  const claims = tokens.claims();
  if (!claims) throw new Error('no ID token');
  t.equal(claims.iss, server.issuer, 'our issuer, not the IdP');
  t.equal(claims.nonce, first.attempt.nonce);
  t.equal(claims.email, 'grace@contoso.example', 'OIDC Core 5.1 email from the emailaddress claim URI');
  t.equal(claims.name, 'Grace Hopper', 'name from the displayname claim URI');
  t.same(claims.amr, ['fed'], 'RFC 8176: federated');

  const again = await signIn(new CookieJar());
  t.same(again.pages, ['sign-in', 'idp'], 'consent remembered for the provisioned user');
  t.equal((await redeem(again.attempt, again.callback)).claims()?.sub, claims.sub, 'the same sub: linked by the NameID, not made again');
});
