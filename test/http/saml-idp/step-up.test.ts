// A RequestedAuthnContext of MultiFactor (SAML AuthnContext 2.0 §3.4) at {issuer}/saml/sso: the person goes through
// the provider's own second factor after the password, the assertion then says MultiFactor; a person with no second
// factor gets a signed NoAuthnContext response at the SP's ACS (Core §3.3.2.2.1), not an error page.
import type { FastifyInstance } from 'fastify';
import t, { type Test } from 'tap';
import { spColumns } from '../../../src/domain/saml/idp/service-providers.js';
import { upsertSamlServiceProviderRow } from '../../../src/storage/saml-service-providers.js';
import { findUserByUsername } from '../../../src/storage/users.js';
import { ALICE, BOB, buildTestApp, CONFIDENTIAL } from '../../helpers/app.js';
import { Browser, formAction, hiddenField, signIn } from '../../helpers/flow.js';
import { CapturingNotifier } from '../../helpers/notifier.js';
import { nodeSamlSp, type NodeSamlOptions } from '../../helpers/saml-idp/node-saml-sp.js';
import { SP_ACS, spMetadata } from '../../helpers/saml-idp/sp-metadata.js';

const MULTI_FACTOR = 'urn:oasis:names:tc:SAML:2.0:ac:classes:MultiFactor';
const PPT = 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport';

async function setup(t: Test) {
  const notifier = new CapturingNotifier();
  const { app, db } = await buildTestApp(t, { notifier });
  await upsertSamlServiceProviderRow(db, spColumns({ metadata_xml: await spMetadata({}) }), new Date());
  const res = await app.inject({ method: 'GET', url: '/sso/saml/metadata' });
  const idpCert = /<ds:X509Certificate>([^<]+)</.exec(res.body)![1]!;
  const sp = (options: NodeSamlOptions = {}) => nodeSamlSp(idpCert, options);
  return { app, db, notifier, sp };
}

const local = (url: string) => {
  const u = new URL(url, 'http://localhost:3000');
  return `${u.pathname}${u.search}`;
};

function samlResponseOf(body: string): string | undefined {
  return body.includes('name="SAMLResponse"') ? hiddenField(body, 'SAMLResponse') : undefined;
}

const xmlOf = (samlResponse: string) => Buffer.from(samlResponse, 'base64').toString('utf8');
const classRefOf = (xml: string) => /AuthnContextClassRef>([^<]+)</.exec(xml)?.[1];

/** Follows the provider's own redirects (at most `max`), stopping at a page. */
async function follow(app: FastifyInstance, browser: Browser, res: Awaited<ReturnType<Browser['request']>>, max = 4) {
  for (let i = 0; i < max && (res.statusCode === 303 || res.statusCode === 302); i += 1) {
    res = await browser.request(app, 'GET', local(String(res.headers.location)));
  }
  return res;
}

/** The sign-in page the browser was sent to, filled in with `user`'s password; the answer, followed. */
async function typePassword(app: FastifyInstance, browser: Browser, location: string, user: { username: string; password: string }) {
  const page = await browser.request(app, 'GET', local(location));
  if (page.statusCode !== 200) throw new Error(`no sign-in page at ${location}: ${page.statusCode}`);
  const res = await browser.request(app, 'POST', formAction(page.body), {
    csrf: hiddenField(page.body, 'csrf'),
    login: user.username,
    password: user.password,
  });
  return follow(app, browser, res);
}

async function passwordSession(app: FastifyInstance, user: { username: string; password: string } = ALICE): Promise<Browser> {
  const { browser } = await signIn(
    app,
    { response_type: 'code', client_id: CONFIDENTIAL.client_id, redirect_uri: CONFIDENTIAL.redirect_uris[0], scope: 'openid' },
    { user },
  );
  return browser;
}

t.test(
  'MultiFactor after a password-only sign-in: password, then the second factor, then an assertion saying MultiFactor (AuthnContext §3.4)',
  async (t) => {
    const { app, db, notifier, sp } = await setup(t);
    const aliceId = (await findUserByUsername(db, ALICE.username))!.id;
    const browser = await passwordSession(app);
    const saml = sp({ authnContext: [MULTI_FACTOR], racComparison: 'exact' });
    const started = await browser.request(app, 'GET', local(await saml.getAuthorizeUrlAsync('relay-mfa', undefined, {})));
    t.equal(started.statusCode, 303, 'the password session cannot answer it');
    t.notMatch(started.body, /SAMLResponse/);
    const codePage = await typePassword(app, browser, String(started.headers.location), ALICE);
    t.equal(codePage.statusCode, 200);
    t.match(codePage.body, /name="code"/, 'the password goes on to the second factor, not straight back to the SP');
    const answered = await follow(
      app,
      browser,
      await browser.request(app, 'POST', formAction(codePage.body), {
        csrf: hiddenField(codePage.body, 'csrf'),
        code: await notifier.code(aliceId),
      }),
    );
    t.equal(answered.statusCode, 200);
    const response = samlResponseOf(answered.body)!;
    t.ok(response, 'a response for the ACS');
    t.equal(classRefOf(xmlOf(response)), MULTI_FACTOR, 'the AuthnContextClassRef says MultiFactor: a second factor was used');
    const { profile } = await saml.validatePostResponseAsync({ SAMLResponse: response });
    t.equal(profile!.nameID, ALICE.username, 'node-saml accepts it, in response to its own request');
    // The session now has a second factor: the next request for MultiFactor is answered at once.
    const next = sp({ authnContext: [MULTI_FACTOR] });
    const again = await browser.request(app, 'GET', local(await next.getAuthorizeUrlAsync('', undefined, {})));
    t.equal(again.statusCode, 200);
    t.equal(classRefOf(xmlOf(samlResponseOf(again.body)!)), MULTI_FACTOR);
  },
);

t.test('a password-only request is answered with PasswordProtectedTransport, never MultiFactor (AuthnContext §3.4)', async (t) => {
  const { app, sp } = await setup(t);
  const browser = await passwordSession(app);
  const saml = sp({ authnContext: [PPT] });
  const res = await browser.request(app, 'GET', local(await saml.getAuthorizeUrlAsync('', undefined, {})));
  t.equal(res.statusCode, 200);
  t.equal(classRefOf(xmlOf(samlResponseOf(res.body)!)), PPT, 'no second factor was used');
});

t.test(
  'a person with no second factor asked for MultiFactor gets a signed NoAuthnContext response at the ACS (Core §3.3.2.2.1)',
  async (t) => {
    const { app, sp } = await setup(t);
    const saml = sp({ authnContext: [MULTI_FACTOR], racComparison: 'exact' });

    await t.test('signed in already', async (t) => {
      const browser = await passwordSession(app, BOB);
      const res = await browser.request(app, 'GET', local(await saml.getAuthorizeUrlAsync('relay-bob', undefined, {})));
      t.equal(res.statusCode, 200, 'no sign-in page: nothing the person could do would satisfy it');
      t.match(res.body, `action="${SP_ACS}"`, 'posted to the ACS');
      const xml = xmlOf(samlResponseOf(res.body)!);
      t.match(xml, 'urn:oasis:names:tc:SAML:2.0:status:Responder');
      t.match(xml, 'urn:oasis:names:tc:SAML:2.0:status:NoAuthnContext');
      t.notMatch(xml, /Assertion/, 'no assertion');
      await t.rejects(
        saml.validatePostResponseAsync({ SAMLResponse: samlResponseOf(res.body)! }),
        /NoAuthnContext|Responder/,
        'node-saml checks the signature and reads the status',
      );
    });

    await t.test('signing in for it', async (t) => {
      const browser = new Browser();
      const started = await browser.request(app, 'GET', local(await saml.getAuthorizeUrlAsync('', undefined, {})));
      t.equal(started.statusCode, 303, 'who it is is not known yet: the sign-in page');
      const res = await typePassword(app, browser, String(started.headers.location), BOB);
      t.equal(res.statusCode, 200);
      t.match(res.body, `action="${SP_ACS}"`, 'back to the SP, not an error page');
      t.match(xmlOf(samlResponseOf(res.body)!), 'urn:oasis:names:tc:SAML:2.0:status:NoAuthnContext');
    });
  },
);

t.test('ForceAuthn with MultiFactor: a session with a second factor signs in again, with both factors (Core §3.4.1)', async (t) => {
  const { app, db, notifier, sp } = await setup(t);
  const aliceId = (await findUserByUsername(db, ALICE.username))!.id;
  const browser = await passwordSession(app);
  const first = sp({ authnContext: [MULTI_FACTOR] });
  const started = await browser.request(app, 'GET', local(await first.getAuthorizeUrlAsync('', undefined, {})));
  const codePage = await typePassword(app, browser, String(started.headers.location), ALICE);
  await follow(
    app,
    browser,
    await browser.request(app, 'POST', formAction(codePage.body), {
      csrf: hiddenField(codePage.body, 'csrf'),
      code: await notifier.code(aliceId),
    }),
  );
  const forced = sp({ authnContext: [MULTI_FACTOR], forceAuthn: true });
  const again = await browser.request(app, 'GET', local(await forced.getAuthorizeUrlAsync('', undefined, {})));
  t.equal(again.statusCode, 303, 'the session with a second factor does not answer a ForceAuthn request');
  const secondCodePage = await typePassword(app, browser, String(again.headers.location), ALICE);
  t.match(secondCodePage.body, /name="code"/, 'the second factor again');
  const answered = await follow(
    app,
    browser,
    await browser.request(app, 'POST', formAction(secondCodePage.body), {
      csrf: hiddenField(secondCodePage.body, 'csrf'),
      code: await notifier.code(aliceId, 2),
    }),
  );
  t.equal(classRefOf(xmlOf(samlResponseOf(answered.body)!)), MULTI_FACTOR);
});
