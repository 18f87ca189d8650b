// Single logout reaching every SP of the session (SAML Profiles 2.0 §4.4.3.3-4.4.3.4) with node-saml as three SPs:
// a logout at one sends a signed LogoutRequest to each other through the browser, each LogoutResponse returns to
// {issuer}/saml/slo, and the SP that asked gets Success or PartialLogout; the provider's own sign-out does the same.
import { inflateRawSync } from 'node:zlib';
import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import type { FastifyInstance } from 'fastify';
import t, { type Test } from 'tap';
import { spColumns } from '../../../src/domain/saml/idp/service-providers.js';
import { upsertSamlServiceProviderRow } from '../../../src/storage/saml-service-providers.js';
import type { Db } from '../../../src/storage/database.js';
import { buildTestApp, CONFIDENTIAL } from '../../helpers/app.js';
import { type Browser, hiddenField, signIn } from '../../helpers/flow.js';
import { spMetadata, testSpKey } from '../../helpers/saml-idp/sp-metadata.js';

const SP = (name: string) => ({
  entityId: `https://${name}.example.test/saml`,
  acs: `https://${name}.example.test/saml/acs`,
  slo: `https://${name}.example.test/saml/slo`,
});
const A = SP('a');
const B = SP('b');
const C = SP('c');

const path = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

async function registerSp(db: Db, app: FastifyInstance, sp: ReturnType<typeof SP>, withSlo = true): Promise<SAML> {
  const metadataXml = await spMetadata({
    entityId: sp.entityId,
    acs: [{ location: sp.acs, index: 0, isDefault: true }],
    ...(withSlo ? { slo: sp.slo } : {}),
  });
  await upsertSamlServiceProviderRow(db, spColumns({ metadata_xml: metadataXml }), new Date());
  const metadata = await app.inject({ method: 'GET', url: '/sso/saml/metadata' });
  return new SAML({
    entryPoint: 'http://localhost:3000/sso/saml/sso',
    logoutUrl: 'http://localhost:3000/sso/saml/slo',
    logoutCallbackUrl: sp.slo,
    idpCert: /<ds:X509Certificate>([^<]+)</.exec(metadata.body)![1]!,
    issuer: sp.entityId,
    callbackUrl: sp.acs,
    audience: sp.entityId,
    privateKey: (await testSpKey()).privateKeyPem,
    signatureAlgorithm: 'sha256',
    validateInResponseTo: ValidateInResponseTo.never,
    identifierFormat: null,
  });
}

async function setup(t: Test, options: { cWithoutSlo?: boolean } = {}) {
  const { app, db } = await buildTestApp(t);
  const a = await registerSp(db, app, A);
  const b = await registerSp(db, app, B);
  const c = await registerSp(db, app, C, !options.cWithoutSlo);
  const { browser } = await signIn(app, {
    response_type: 'code',
    client_id: CONFIDENTIAL.client_id,
    redirect_uri: CONFIDENTIAL.redirect_uris[0],
    scope: 'openid',
  });
  return { app, db, a, b, c, browser };
}

async function samlSignIn(app: FastifyInstance, saml: SAML, browser: Browser) {
  const res = await browser.request(app, 'GET', path(await saml.getAuthorizeUrlAsync('', undefined, {})));
  const { profile } = await saml.validatePostResponseAsync({ SAMLResponse: hiddenField(res.body, 'SAMLResponse') });
  return profile!;
}

/** The SP's side of a LogoutRequest the provider sent it: checked by node-saml, answered (Success or not). */
async function answerAtSp(saml: SAML, location: string, success = true): Promise<string> {
  const url = new URL(location);
  const { profile } = await saml.validateRedirectAsync(Object.fromEntries(url.searchParams), url.search.slice(1));
  if (!profile) throw new Error('not a LogoutRequest');
  return path(await saml.getLogoutResponseUrlAsync(profile, '', {}, success));
}

const sloOf = (location: string) => {
  const u = new URL(location);
  return `${u.origin}${u.pathname}`;
};

function statusCodes(location: string): string[] {
  const xml = inflateRawSync(Buffer.from(new URL(location).searchParams.get('SAMLResponse')!, 'base64')).toString('utf8');
  return [...xml.matchAll(/StatusCode Value="([^"]+)"/g)].map((m) => m[1]!);
}

const stillSignedIn = async (app: FastifyInstance, saml: SAML, browser: Browser) =>
  (await browser.request(app, 'GET', path(await saml.getAuthorizeUrlAsync('', undefined, {})))).statusCode === 200;

t.test('a logout at one SP sends a signed LogoutRequest to each other SP in turn, then answers Success (Profiles §4.4.3.3)', async (t) => {
  const { app, a, b, c, browser } = await setup(t);
  const profileA = await samlSignIn(app, a, browser);
  const profileB = await samlSignIn(app, b, browser);
  await samlSignIn(app, c, browser);
  const first = await browser.request(app, 'GET', path(await a.getLogoutUrlAsync(profileA, 'after', {})));
  t.equal(first.statusCode, 303);
  t.equal(sloOf(String(first.headers.location)), B.slo, 'first to B');
  const requestB = new URL(String(first.headers.location));
  const { profile: atB } = await b.validateRedirectAsync(Object.fromEntries(requestB.searchParams), requestB.search.slice(1));
  t.equal(atB?.nameID, profileB.nameID, "the LogoutRequest names B's NameID (Core §3.7.1)");
  t.equal(atB?.sessionIndex, profileB.sessionIndex, 'and the SessionIndex of its assertion');
  const second = await browser.request(app, 'GET', await answerAtSp(b, String(first.headers.location)));
  t.equal(sloOf(String(second.headers.location)), C.slo, 'then to C');
  const last = await browser.request(app, 'GET', await answerAtSp(c, String(second.headers.location)));
  t.equal(sloOf(String(last.headers.location)), A.slo, 'then the LogoutResponse to A');
  const back = new URL(String(last.headers.location));
  t.equal(back.searchParams.get('RelayState'), 'after');
  const { loggedOut } = await a.validateRedirectAsync(Object.fromEntries(back.searchParams), back.search.slice(1));
  t.equal(loggedOut, true, 'node-saml accepts the signed LogoutResponse');
  t.same(statusCodes(String(last.headers.location)), ['urn:oasis:names:tc:SAML:2.0:status:Success'], 'Success, not partial');
  t.notOk(await stillSignedIn(app, b, browser), 'the provider session is gone');
});

t.test('an SP that answers with a failure makes the answer PartialLogout (Profiles §4.4.3.4)', async (t) => {
  const { app, a, b, browser } = await setup(t);
  const profileA = await samlSignIn(app, a, browser);
  await samlSignIn(app, b, browser);
  const first = await browser.request(app, 'GET', path(await a.getLogoutUrlAsync(profileA, '', {})));
  const last = await browser.request(app, 'GET', await answerAtSp(b, String(first.headers.location), false));
  t.equal(sloOf(String(last.headers.location)), A.slo);
  t.same(statusCodes(String(last.headers.location)), [
    'urn:oasis:names:tc:SAML:2.0:status:Success',
    'urn:oasis:names:tc:SAML:2.0:status:PartialLogout',
  ]);
});

t.test('an SP with no SingleLogoutService (Redirect or POST) cannot be told: PartialLogout (Profiles §4.4.3.4)', async (t) => {
  const { app, a, c, browser } = await setup(t, { cWithoutSlo: true });
  const profileA = await samlSignIn(app, a, browser);
  await samlSignIn(app, c, browser);
  const res = await browser.request(app, 'GET', path(await a.getLogoutUrlAsync(profileA, '', {})));
  t.equal(sloOf(String(res.headers.location)), A.slo, 'straight back to A');
  t.match(statusCodes(String(res.headers.location)), ['urn:oasis:names:tc:SAML:2.0:status:Success', /PartialLogout$/]);
});

t.test('an unsigned or forged LogoutResponse counts as not logged out (Profiles §4.4.4.2)', async (t) => {
  const { app, a, b, browser } = await setup(t);
  const profileA = await samlSignIn(app, a, browser);
  await samlSignIn(app, b, browser);
  const first = await browser.request(app, 'GET', path(await a.getLogoutUrlAsync(profileA, '', {})));
  const answer = new URL(await answerAtSp(b, String(first.headers.location)), 'http://localhost');
  answer.searchParams.delete('Signature');
  answer.searchParams.delete('SigAlg');
  const last = await browser.request(app, 'GET', `${answer.pathname}${answer.search}`);
  t.equal(sloOf(String(last.headers.location)), A.slo);
  t.match(statusCodes(String(last.headers.location)), [/Success$/, /PartialLogout$/]);
});

t.test('a LogoutResponse with no logout under way in the browser is refused', async (t) => {
  const { app, a, b, browser } = await setup(t);
  const profileA = await samlSignIn(app, a, browser);
  await samlSignIn(app, b, browser);
  const first = await browser.request(app, 'GET', path(await a.getLogoutUrlAsync(profileA, '', {})));
  const answer = await answerAtSp(b, String(first.headers.location));
  const res = await app.inject({ method: 'GET', url: answer });
  t.equal(res.statusCode, 400);
  t.notOk(res.headers.location);
});

t.test(
  "the provider's own sign-out logs the session's SAML SPs out before its signed-out page (Profiles §4.4, IdP-initiated)",
  async (t) => {
    const { app, a, b, browser } = await setup(t);
    await samlSignIn(app, a, browser);
    await samlSignIn(app, b, browser);
    const ask = await browser.request(app, 'GET', '/sso/session/end');
    const confirm = await browser.request(app, 'POST', '/sso/session/end/confirm', {
      csrf: hiddenField(ask.body, 'csrf'),
      decision: 'logout',
    });
    t.equal(confirm.statusCode, 303);
    t.match(String(confirm.headers.location), /\/saml\/slo\/next$/);
    const toA = await browser.request(app, 'GET', path(String(confirm.headers.location)));
    t.equal(sloOf(String(toA.headers.location)), A.slo, 'first to A');
    const toB = await browser.request(app, 'GET', await answerAtSp(a, String(toA.headers.location)));
    t.equal(sloOf(String(toB.headers.location)), B.slo, 'then to B');
    const done = await browser.request(app, 'GET', await answerAtSp(b, String(toB.headers.location)));
    t.equal(done.statusCode, 200, "the provider's signed-out page");
    t.notOk(done.headers.location);
    t.notOk(await stillSignedIn(app, a, browser));
  },
);

t.test('a sign-out with no SAML SP in the session ends as before, with no chain', async (t) => {
  const { app, browser } = await setup(t);
  const ask = await browser.request(app, 'GET', '/sso/session/end');
  const confirm = await browser.request(app, 'POST', '/sso/session/end/confirm', {
    csrf: hiddenField(ask.body, 'csrf'),
    decision: 'logout',
  });
  t.equal(confirm.statusCode, 200);
  t.notOk(confirm.headers.location);
});
