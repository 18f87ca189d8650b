// SP-initiated Single Logout at {issuer}/saml/slo (SAML Profiles 2.0 §4.4) with node-saml as the SP: its signed
// LogoutRequest ends the provider session, and its LogoutResponse comes back signed to the SP's SingleLogoutService.
import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import type { FastifyInstance } from 'fastify';
import t, { type Test } from 'tap';
import { spColumns } from '../../../src/domain/saml/idp/service-providers.js';
import { upsertSamlServiceProviderRow } from '../../../src/storage/saml-service-providers.js';
import { buildTestApp, CONFIDENTIAL } from '../../helpers/app.js';
import { type Browser, hiddenField, signIn } from '../../helpers/flow.js';
import { SP_ACS, SP_ENTITY_ID, spMetadata, testSpKey } from '../../helpers/saml-idp/sp-metadata.js';

const SP_SLO = 'https://sp.example.test/saml/slo';

async function setup(t: Test): Promise<{ app: FastifyInstance; saml: SAML; browser: Browser }> {
  const { app, db } = await buildTestApp(t);
  await upsertSamlServiceProviderRow(db, spColumns({ metadata_xml: await spMetadata({ slo: SP_SLO }) }), new Date());
  const metadata = await app.inject({ method: 'GET', url: '/sso/saml/metadata' });
  const saml = new SAML({
    entryPoint: 'http://localhost:3000/sso/saml/sso',
    logoutUrl: 'http://localhost:3000/sso/saml/slo',
    logoutCallbackUrl: SP_SLO,
    idpCert: /<ds:X509Certificate>([^<]+)</.exec(metadata.body)![1]!,
    issuer: SP_ENTITY_ID,
    callbackUrl: SP_ACS,
    audience: SP_ENTITY_ID,
    privateKey: (await testSpKey()).privateKeyPem,
    signatureAlgorithm: 'sha256',
    validateInResponseTo: ValidateInResponseTo.never,
    identifierFormat: null,
  });
  const { browser } = await signIn(app, {
    response_type: 'code',
    client_id: CONFIDENTIAL.client_id,
    redirect_uri: CONFIDENTIAL.redirect_uris[0],
    scope: 'openid',
  });
  return { app, saml, browser };
}

const path = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

async function samlSignIn(app: FastifyInstance, saml: SAML, browser: Browser) {
  const res = await browser.request(app, 'GET', path(await saml.getAuthorizeUrlAsync('', undefined, {})));
  const { profile } = await saml.validatePostResponseAsync({ SAMLResponse: hiddenField(res.body, 'SAMLResponse') });
  return profile!;
}

t.test('a signed LogoutRequest ends the provider session and gets a signed LogoutResponse at the SP (Profiles §4.4.3)', async (t) => {
  const { app, saml, browser } = await setup(t);
  const profile = await samlSignIn(app, saml, browser);
  const logoutUrl = await saml.getLogoutUrlAsync(profile, 'after-logout', {});
  const res = await browser.request(app, 'GET', path(logoutUrl));
  t.equal(res.statusCode, 303);
  const back = new URL(String(res.headers.location));
  t.equal(`${back.origin}${back.pathname}`, SP_SLO, "to the SP's SingleLogoutService");
  t.equal(back.searchParams.get('RelayState'), 'after-logout');
  const query = Object.fromEntries(back.searchParams);
  const { loggedOut } = await saml.validateRedirectAsync(query, back.search.slice(1));
  t.equal(loggedOut, true, 'node-saml accepts the signed LogoutResponse');
  const again = await browser.request(app, 'GET', path(await saml.getAuthorizeUrlAsync('', undefined, {})));
  t.equal(again.statusCode, 303, 'the provider session is gone: a new AuthnRequest needs a sign-in');
  t.match(String(again.headers.location), /account\/sign-in/);
});

t.test('an unsigned or forged LogoutRequest is refused and the session stays (Profiles §4.4.4.1)', async (t) => {
  const { app, saml, browser } = await setup(t);
  const profile = await samlSignIn(app, saml, browser);
  const url = new URL(await saml.getLogoutUrlAsync(profile, '', {}));
  url.searchParams.delete('Signature');
  url.searchParams.delete('SigAlg');
  const unsigned = await browser.request(app, 'GET', `${url.pathname}${url.search}`);
  t.equal(unsigned.statusCode, 400);
  t.notMatch(String(unsigned.headers.location ?? ''), /slo/);
  const forged = new URL(await saml.getLogoutUrlAsync(profile, '', {}));
  forged.searchParams.set('RelayState', 'added');
  t.equal((await browser.request(app, 'GET', `${forged.pathname}${forged.search}`)).statusCode, 400);
  const still = await browser.request(app, 'GET', path(await saml.getAuthorizeUrlAsync('', undefined, {})));
  t.equal(still.statusCode, 200, 'still signed in');
});

t.test(
  'a LogoutRequest that comes without the session cookie ends the session its NameID and SessionIndex name (Profiles §4.4.3.2)',
  async (t) => {
    const { app, saml, browser } = await setup(t);
    const profile = await samlSignIn(app, saml, browser);
    // A cross-site POST from the SP's site brings no SameSite=Lax cookie: the request alone must name the session.
    const cookieless = await app.inject({ method: 'GET', url: path(await saml.getLogoutUrlAsync(profile, '', {})) });
    t.equal(cookieless.statusCode, 303);
    const back = new URL(String(cookieless.headers.location));
    t.equal(`${back.origin}${back.pathname}`, SP_SLO);
    t.equal((await saml.validateRedirectAsync(Object.fromEntries(back.searchParams), back.search.slice(1))).loggedOut, true);
    const again = await browser.request(app, 'GET', path(await saml.getAuthorizeUrlAsync('', undefined, {})));
    t.equal(again.statusCode, 303, 'the session the request named has ended, though the browser that holds it never asked');
    t.match(String(again.headers.location), /account\/sign-in/);
  },
);

t.test('a cookieless LogoutRequest naming a NameID the SP was never told ends nothing', async (t) => {
  const { app, saml, browser } = await setup(t);
  const profile = await samlSignIn(app, saml, browser);
  const other = { ...profile, nameID: 'someone-else' };
  const res = await app.inject({ method: 'GET', url: path(await saml.getLogoutUrlAsync(other, '', {})) });
  t.equal(res.statusCode, 303, 'answered (Success: there is no such session to end)');
  const still = await browser.request(app, 'GET', path(await saml.getAuthorizeUrlAsync('', undefined, {})));
  t.equal(still.statusCode, 200, 'still signed in');
});
