// Single logout toward an SP whose SingleLogoutService takes HTTP-POST only (SAML Bindings 2.0 §3.5, Profiles 2.0
// §4.4.3-4.4.4): the provider's LogoutRequest, and its LogoutResponse to an SP that asked, travel in the auto-submitting
// form page, base64 of the XML signed with an enveloped signature (checked here with xml-crypto against the certificate
// of {issuer}/saml/metadata); the SP's LogoutResponse posted back to {issuer}/saml/slo goes on with the chain.
import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import { DOMParser } from '@xmldom/xmldom';
import pino from 'pino';
import t, { type Test } from 'tap';
import { SignedXml } from 'xml-crypto';
import { loggerOptions } from '../../../src/logger.js';
import { spColumns } from '../../../src/domain/saml/idp/service-providers.js';
import { samlLogoutCookie } from '../../../src/http/cookies.js';
import { FORM_POST_HEADERS } from '../../../src/http/views/form-post.js';
import { upsertSamlServiceProviderRow } from '../../../src/storage/saml-service-providers.js';
import { buildTestApp, CONFIDENTIAL, testConfig } from '../../helpers/app.js';
import { type Browser, hiddenField, signIn } from '../../helpers/flow.js';
import { spMetadata, testSpKey } from '../../helpers/saml-idp/sp-metadata.js';

const NS = {
  protocol: 'urn:oasis:names:tc:SAML:2.0:protocol',
  assertion: 'urn:oasis:names:tc:SAML:2.0:assertion',
  xmldsig: 'http://www.w3.org/2000/09/xmldsig#',
};
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
const PARTIAL = 'urn:oasis:names:tc:SAML:2.0:status:PartialLogout';
const SLO_URL = 'http://localhost:3000/sso/saml/slo';

type Binding = 'post' | 'redirect';
const SP = (name: string, sloBindings: Binding[]) => ({
  entityId: `https://${name}.example.test/saml`,
  acs: `https://${name}.example.test/saml/acs`,
  slo: `https://${name}.example.test/saml/slo`,
  sloBindings,
});
/** Redirect-only SPs, a POST-only one, and one that offers both. */
const A = SP('a', ['redirect']);
const B = SP('b', ['redirect']);
const P = SP('p', ['post']);
const Q = SP('q', ['post', 'redirect']);

const path = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};
const sloOf = (location: string) => {
  const u = new URL(location);
  return `${u.origin}${u.pathname}`;
};

// One app for the file (its database costs more than the tests); each test signs in a browser of its own. Its log
// says why an SP's answer did not count.
const logLines: string[] = [];
const logger = pino(loggerOptions('info'), { write: (line: string) => void logLines.push(line) });
const { app, db } = await buildTestApp(t, { logger });
const lastUnconfirmed = () =>
  logLines
    .map((line) => JSON.parse(line) as { event?: string; code?: string; sp?: string })
    .filter((entry) => entry.event === 'saml_logout_unconfirmed')
    .at(-1);
const metadata = await app.inject({ method: 'GET', url: '/sso/saml/metadata' });
const idpCertBase64 = /<ds:X509Certificate>([^<]+)</.exec(metadata.body)![1]!;
const idpCertPem = `-----BEGIN CERTIFICATE-----\n${idpCertBase64.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
const spKey = await testSpKey();

async function registerSp(sp: ReturnType<typeof SP>): Promise<SAML> {
  const metadataXml = await spMetadata({
    entityId: sp.entityId,
    acs: [{ location: sp.acs, index: 0, isDefault: true }],
    slo: sp.slo,
    sloBindings: sp.sloBindings,
  });
  await upsertSamlServiceProviderRow(db, spColumns({ metadata_xml: metadataXml }), new Date());
  return new SAML({
    entryPoint: 'http://localhost:3000/sso/saml/sso',
    logoutUrl: SLO_URL,
    logoutCallbackUrl: sp.slo,
    idpCert: idpCertBase64,
    issuer: sp.entityId,
    callbackUrl: sp.acs,
    audience: sp.entityId,
    privateKey: spKey.privateKeyPem,
    signatureAlgorithm: 'sha256',
    validateInResponseTo: ValidateInResponseTo.never,
    identifierFormat: null,
  });
}
const saml = { a: await registerSp(A), b: await registerSp(B), p: await registerSp(P), q: await registerSp(Q) };

/** A browser signed in at the provider and then, through it, at each SP named (in that order). */
async function signedInAt(...sps: SAML[]): Promise<Browser> {
  const { browser } = await signIn(app, {
    response_type: 'code',
    client_id: CONFIDENTIAL.client_id,
    redirect_uri: CONFIDENTIAL.redirect_uris[0],
    scope: 'openid',
  });
  for (const sp of sps) {
    const res = await browser.request(app, 'GET', path(await sp.getAuthorizeUrlAsync('', undefined, {})));
    await sp.validatePostResponseAsync({ SAMLResponse: hiddenField(res.body, 'SAMLResponse') });
  }
  return browser;
}

/** The SP's logout at the provider (node-saml's signed Redirect LogoutRequest); the provider's answer. */
async function logoutAt(browser: Browser, sp: SAML, relayState = '') {
  const profile = { issuer: sp.options.issuer, nameID: 'alice@example.com', nameIDFormat: 'unspecified', sessionIndex: undefined };
  return browser.request(app, 'GET', path(await sp.getLogoutUrlAsync(profile as never, relayState, {})));
}

/** The form page of HTTP-POST: where it posts, and its fields. */
function form(body: string): { action: string; fields: Map<string, string> } {
  const action = /<form method="post" action="([^"]+)"/.exec(body)?.[1];
  if (!action) throw new Error('no form in page');
  const fields = new Map([...body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
  return { action: action.replace(/&amp;/g, '&'), fields };
}

const nodes = (list: { length: number; item(i: number): Node | null }): Node[] =>
  Array.from({ length: list.length }, (_, i) => list.item(i)!);

/**
 * Bindings §3.5.4: the message is the base64 of the XML (no DEFLATE), its signature enveloped in it: exactly one
 * Signature, a child of the root right after the Issuer, one Reference to the root's own ID, verifying with the IdP
 * certificate of the metadata (never one from KeyInfo). Returns the XML's root.
 */
function verifiedPostMessage(t: Test, value: string): Element {
  const xml = Buffer.from(value, 'base64').toString('utf8');
  t.match(xml, /^<(\?xml|samlp:)/, 'the XML itself in base64, not deflated (Bindings §3.5.4)');
  const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement!;
  const children = nodes(root.childNodes).filter((n): n is Element => n.nodeType === 1);
  t.same(
    children.slice(0, 2).map((e) => `${e.namespaceURI} ${e.localName}`),
    [`${NS.assertion} Issuer`, `${NS.xmldsig} Signature`],
    'the Signature right after the Issuer (Core §3.2.1 schema order)',
  );
  t.equal(root.getElementsByTagNameNS(NS.xmldsig, 'Signature').length, 1, 'one signature');
  const references = root.getElementsByTagNameNS(NS.xmldsig, 'Reference');
  t.same(
    nodes(references).map((r) => (r as Element).getAttribute('URI')),
    [`#${root.getAttribute('ID')}`],
    'over the message (Core §5.4.2)',
  );
  const verifier = new SignedXml({ publicCert: idpCertPem, getCertFromKeyInfo: () => null });
  verifier.loadSignature(children[1]!);
  t.equal(verifier.checkSignature(xml), true, "the signature verifies with the metadata's certificate (Bindings §3.5.4)");
  return root;
}

/** The SP's LogoutResponse (Core §3.7.2), as the SP would post it: signed with its key unless told. */
function spLogoutResponse(input: {
  issuer: string;
  inResponseTo: string;
  destination?: string;
  status?: string;
  signed?: boolean;
  /** Changed after signing. */
  alter?: (xml: string) => string;
}): string {
  const id = `_sp${Math.random().toString(16).slice(2)}`;
  const destination =
    input.destination === undefined ? ` Destination="${SLO_URL}"` : input.destination ? ` Destination="${input.destination}"` : '';
  let xml =
    `<samlp:LogoutResponse xmlns:samlp="${NS.protocol}" xmlns:saml="${NS.assertion}" ID="${id}" Version="2.0" ` +
    `IssueInstant="${new Date().toISOString()}"${destination} InResponseTo="${input.inResponseTo}">` +
    `<saml:Issuer>${input.issuer}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="${input.status ?? SUCCESS}"/></samlp:Status></samlp:LogoutResponse>`;
  if (input.signed !== false) {
    const signer = new SignedXml({
      privateKey: spKey.privateKeyPem,
      signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    });
    signer.addReference({
      xpath: `/*[@ID='${id}']`,
      digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
      transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    });
    signer.computeSignature(xml, { prefix: 'ds', location: { reference: `/*/*[local-name(.)='Issuer']`, action: 'after' } });
    xml = signer.getSignedXml();
  }
  return Buffer.from(input.alter ? input.alter(xml) : xml, 'utf8').toString('base64');
}

/** The status codes of the provider's LogoutResponse to an SP over HTTP-Redirect. */
async function redirectStatusCodes(sp: SAML, location: string): Promise<string[]> {
  const url = new URL(location);
  const { loggedOut } = await sp.validateRedirectAsync(Object.fromEntries(url.searchParams), url.search.slice(1));
  if (!loggedOut) throw new Error('not a LogoutResponse');
  const { inflateRawSync } = await import('node:zlib');
  const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLResponse')!, 'base64')).toString('utf8');
  return [...xml.matchAll(/StatusCode Value="([^"]+)"/g)].map((m) => m[1]!);
}

const stillSignedIn = async (browser: Browser, sp: SAML) =>
  (await browser.request(app, 'GET', path(await sp.getAuthorizeUrlAsync('', undefined, {})))).statusCode === 200;

t.test(
  'an SP whose SingleLogoutService is HTTP-POST only gets the signed LogoutRequest in a form that posts itself (Bindings §3.5)',
  async (t) => {
    const browser = await signedInAt(saml.a, saml.p);
    const page = await logoutAt(browser, saml.a);
    t.equal(page.statusCode, 200, 'a page, not a redirect');
    t.equal(
      page.headers['content-security-policy'],
      FORM_POST_HEADERS['content-security-policy'],
      "the form_post page's CSP (its script allowed by hash)",
    );
    t.equal(page.headers['cache-control'], 'no-store');
    const { action, fields } = form(page.body);
    t.equal(action, P.slo, "to P's SingleLogoutService");
    t.same([...fields.keys()], ['SAMLRequest'], 'the request alone (the provider sends no RelayState)');
    const root = verifiedPostMessage(t, fields.get('SAMLRequest')!);
    t.equal(root.localName, 'LogoutRequest');
    t.equal(root.getAttribute('Destination'), P.slo, "Destination is the form's target (Bindings §3.5.5.2)");
    const { profile, loggedOut } = await saml.p.validatePostRequestAsync({ SAMLRequest: fields.get('SAMLRequest')! });
    t.equal(loggedOut, true, 'node-saml, as the SP, accepts the signed LogoutRequest');
    t.equal(profile.sessionIndex, root.getElementsByTagNameNS(NS.protocol, 'SessionIndex')[0]?.textContent, 'with its SessionIndex');
  },
);

t.test("the POST SP's signed LogoutResponse posted back goes on with the chain, which ends Success (Profiles §4.4.3.4)", async (t) => {
  const browser = await signedInAt(saml.a, saml.p);
  const page = await logoutAt(browser, saml.a, 'after');
  const request = verifiedPostMessage(t, form(page.body).fields.get('SAMLRequest')!);
  const back = await browser.request(app, 'POST', '/sso/saml/slo', {
    SAMLResponse: spLogoutResponse({ issuer: P.entityId, inResponseTo: request.getAttribute('ID')! }),
  });
  t.equal(back.statusCode, 303);
  t.equal(sloOf(String(back.headers.location)), A.slo, 'then the LogoutResponse to A');
  t.equal(new URL(String(back.headers.location)).searchParams.get('RelayState'), 'after');
  t.same(await redirectStatusCodes(saml.a, String(back.headers.location)), [SUCCESS], 'Success, not partial');
  t.notOk(await stillSignedIn(browser, saml.p), 'the provider session is gone');
});

t.test('a POSTed LogoutResponse that does not prove itself makes the answer PartialLogout (Profiles §4.4.4.2)', async (t) => {
  const cases: Array<[string, string, (id: string) => Parameters<typeof spLogoutResponse>[0]]> = [
    ['unsigned', 'bad_signature', (id) => ({ issuer: P.entityId, inResponseTo: id, signed: false })],
    [
      'signed, then altered',
      'bad_signature',
      (id) => ({ issuer: P.entityId, inResponseTo: id, alter: (x) => x.replace(/IssueInstant="\d{4}/, 'IssueInstant="2001') }),
    ],
    ['answering another request', 'bad_message', (id) => ({ issuer: P.entityId, inResponseTo: `${id}x` })],
    ['from another SP (signed with its own key)', 'unknown_peer', (id) => ({ issuer: B.entityId, inResponseTo: id })],
    [
      'to another endpoint',
      'bad_message',
      (id) => ({ issuer: P.entityId, inResponseTo: id, destination: 'https://elsewhere.example.test/slo' }),
    ],
    ['without a Destination (Bindings §3.5.5.2)', 'bad_message', (id) => ({ issuer: P.entityId, inResponseTo: id, destination: '' })],
    ['not Success', 'status', (id) => ({ issuer: P.entityId, inResponseTo: id, status: 'urn:oasis:names:tc:SAML:2.0:status:Responder' })],
  ];
  for (const [name, code, make] of cases) {
    await t.test(name, async (t) => {
      const browser = await signedInAt(saml.a, saml.p);
      const page = await logoutAt(browser, saml.a);
      const id = Buffer.from(form(page.body).fields.get('SAMLRequest')!, 'base64')
        .toString('utf8')
        .match(/ ID="([^"]+)"/)![1]!;
      const back = await browser.request(app, 'POST', '/sso/saml/slo', { SAMLResponse: spLogoutResponse(make(id)) });
      t.equal(back.statusCode, 303, 'the chain goes on all the same');
      t.equal(sloOf(String(back.headers.location)), A.slo);
      t.same(await redirectStatusCodes(saml.a, String(back.headers.location)), [SUCCESS, PARTIAL]);
      t.match(lastUnconfirmed(), { sp: P.entityId, code }, `not confirmed: ${code}`);
    });
  }
});

t.test('a chain through a Redirect SP and a POST SP tells each in its binding, in turn', async (t) => {
  const browser = await signedInAt(saml.a, saml.b, saml.p);
  const toB = await logoutAt(browser, saml.a);
  t.equal(toB.statusCode, 303, 'B over HTTP-Redirect');
  t.equal(sloOf(String(toB.headers.location)), B.slo);
  const requestB = new URL(String(toB.headers.location));
  const { profile } = await saml.b.validateRedirectAsync(Object.fromEntries(requestB.searchParams), requestB.search.slice(1));
  const toP = await browser.request(app, 'GET', path(await saml.b.getLogoutResponseUrlAsync(profile!, '', {}, true)));
  t.equal(toP.statusCode, 200, 'then P over HTTP-POST');
  t.equal(form(toP.body).action, P.slo);
  const request = verifiedPostMessage(t, form(toP.body).fields.get('SAMLRequest')!);
  const back = await browser.request(app, 'POST', '/sso/saml/slo', {
    SAMLResponse: spLogoutResponse({ issuer: P.entityId, inResponseTo: request.getAttribute('ID')! }),
  });
  t.equal(sloOf(String(back.headers.location)), A.slo, 'then the LogoutResponse to A');
  t.same(await redirectStatusCodes(saml.a, String(back.headers.location)), [SUCCESS]);
});

t.test("the provider's own sign-out sends the POST SP its LogoutRequest in the form too, then its signed-out page", async (t) => {
  const browser = await signedInAt(saml.p);
  const ask = await browser.request(app, 'GET', '/sso/session/end');
  const confirm = await browser.request(app, 'POST', '/sso/session/end/confirm', {
    csrf: hiddenField(ask.body, 'csrf'),
    decision: 'logout',
  });
  const page = await browser.request(app, 'GET', path(String(confirm.headers.location)));
  t.equal(form(page.body).action, P.slo);
  const request = verifiedPostMessage(t, form(page.body).fields.get('SAMLRequest')!);
  const done = await browser.request(app, 'POST', '/sso/saml/slo', {
    SAMLResponse: spLogoutResponse({ issuer: P.entityId, inResponseTo: request.getAttribute('ID')! }),
  });
  t.equal(done.statusCode, 200, "the provider's signed-out page");
  t.notOk(done.headers.location);
});

t.test('an SP that offers both bindings is told over HTTP-Redirect', async (t) => {
  const browser = await signedInAt(saml.a, saml.q);
  const res = await logoutAt(browser, saml.a);
  t.equal(res.statusCode, 303);
  t.equal(sloOf(String(res.headers.location)), Q.slo);
  t.ok(new URL(String(res.headers.location)).searchParams.get('Signature'), 'with the query signature (Bindings §3.4.4.1)');
});

t.test('a POST-only SP that logs out gets the LogoutResponse in the same form page, signed in the XML (Bindings §3.5.4)', async (t) => {
  const browser = await signedInAt(saml.p);
  const page = await logoutAt(browser, saml.p, 'relay');
  t.equal(page.statusCode, 200);
  t.equal(page.headers['content-security-policy'], FORM_POST_HEADERS['content-security-policy']);
  const { action, fields } = form(page.body);
  t.equal(action, P.slo);
  t.equal(fields.get('RelayState'), 'relay');
  const root = verifiedPostMessage(t, fields.get('SAMLResponse')!);
  t.equal(root.localName, 'LogoutResponse');
  const { loggedOut } = await saml.p.validatePostResponseAsync({ SAMLResponse: fields.get('SAMLResponse')! });
  t.equal(loggedOut, true, 'node-saml accepts it');
});

t.test("the chain's cookie goes with an SP's cross-site POST: SameSite=None on an https issuer, Lax on http", async (t) => {
  const https = testConfig({ BASE_URL: 'https://id.example.test', KEYS_ENCRYPTION_SECRET: 'k'.repeat(32) });
  t.equal(samlLogoutCookie(https).options.sameSite, 'none');
  t.equal(samlLogoutCookie(https).options.secure, true, 'and Secure, as SameSite=None needs');
  t.equal(samlLogoutCookie(testConfig()).options.sameSite, 'lax');
});
