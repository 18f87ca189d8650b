// Forged and tampered SAML Responses at a saml connection's ACS (issue 39), each built the way a real IdP signs with
// xml-crypto and then tampered with: every one is refused with an error page, nobody signed in, and nothing stored
// (no link, no user, no used assertion ID; the replay keeps only its first one).
import t, { type Test } from 'tap';
import { sql } from 'kysely';
import type { TestApp } from '../../helpers/app.js';
import { Browser } from '../../helpers/flow.js';
import { assertionIdOf, assertionXml, base64, responseXml, signElement, type AssertionOptions } from '../../helpers/saml-sp-idp.js';
import { ACS, SP_ENTITY_ID, followToIdToken, postToAcs, samlApp, startSamlSignIn, testKeys } from '../../helpers/saml-sp-flow.js';

const MARKER = 'mallory@evil.test';

async function counts(server: TestApp) {
  const { rows } = await sql<{ links: string; users: string; assertions: string }>`
    SELECT (SELECT count(*) FROM connection_links) AS links, (SELECT count(*) FROM users) AS users,
           (SELECT count(*) FROM saml_assertions) AS assertions`.execute(server.db);
  return { links: Number(rows[0]!.links), users: Number(rows[0]!.users), assertions: Number(rows[0]!.assertions) };
}

/** Refused: an error page, no session cookie, no redirect anywhere, and nothing new stored. */
async function assertRefused(
  t: Test,
  server: TestApp,
  answer: Awaited<ReturnType<typeof postToAcs>>,
  before: Awaited<ReturnType<typeof counts>>,
) {
  t.equal(answer.statusCode, 400, 'refused with an error page');
  t.notOk(answer.headers.location, 'sent nowhere');
  t.notOk(
    answer.cookies.some((c) => c.name.includes('sso_session')),
    'nobody is signed in',
  );
  t.same(await counts(server), before, 'nothing stored');
}

const baseAssertion = (requestId: string, over: Partial<AssertionOptions> = {}): AssertionOptions => ({
  audience: SP_ENTITY_ID,
  recipient: ACS,
  inResponseTo: requestId,
  nameIdXml: MARKER,
  nameIdFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  attributes: { email: [MARKER] },
  ...over,
});

function signedAssertion(o: AssertionOptions, key: { privateKeyPem: string; certificatePem: string }) {
  const xml = assertionXml(o);
  return signElement(xml, assertionIdOf(xml), key);
}

t.test('a response is refused when', async (t) => {
  const { server, keys } = await samlApp(t);

  async function forged(t: Test, build: (requestId: string) => string, relay?: (started: { relayState: string }) => string | undefined) {
    const started = await startSamlSignIn(server);
    const before = await counts(server);
    const answer = await postToAcs(server, started.browser, build(started.requestId), relay ? relay(started) : started.relayState);
    await assertRefused(t, server, answer, before);
  }

  await t.test('the assertion is signed by another key than the connection certificate (Core 5.4, Profiles 4.1.4.3)', (t) =>
    forged(t, (id) => base64(responseXml({ inner: signedAssertion(baseAssertion(id), keys.other), inResponseTo: id, destination: ACS }))),
  );
  await t.test('the assertion is not signed at all (Profiles 4.1.4.2 with our WantAssertionsSigned)', (t) =>
    forged(t, (id) => base64(responseXml({ inner: assertionXml(baseAssertion(id)), inResponseTo: id, destination: ACS }))),
  );
  await t.test('the signed assertion is moved under samlp:Extensions and an unsigned one takes its place (XSW)', (t) =>
    forged(t, (id) => {
      const good = signedAssertion(baseAssertion(id, { nameIdXml: 'employee-1', attributes: {} }), keys.idp);
      const evil = assertionXml(baseAssertion(id));
      return base64(responseXml({ inner: `<samlp:Extensions>${good}</samlp:Extensions>${evil}`, inResponseTo: id, destination: ACS }));
    }),
  );
  await t.test('the signed assertion is moved into its own ds:Object and an unsigned one takes its place (XSW)', (t) =>
    forged(t, (id) => {
      const good = signedAssertion(baseAssertion(id, { nameIdXml: 'employee-1', attributes: {} }), keys.idp);
      const evil = assertionXml(baseAssertion(id));
      const wrapped = evil.replace(
        '</saml:Issuer>',
        `</saml:Issuer><ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:Object>${good}</ds:Object></ds:Signature>`,
      );
      return base64(responseXml({ inner: wrapped, inResponseTo: id, destination: ACS }));
    }),
  );
  await t.test('a second, unsigned assertion comes before the signed one (XSW)', (t) =>
    forged(t, (id) => {
      const good = signedAssertion(baseAssertion(id, { nameIdXml: 'employee-1', attributes: {} }), keys.idp);
      return base64(responseXml({ inner: assertionXml(baseAssertion(id)) + good, inResponseTo: id, destination: ACS }));
    }),
  );
  await t.test('a second, unsigned assertion comes after the signed one (XSW)', (t) =>
    forged(t, (id) => {
      const good = signedAssertion(baseAssertion(id, { nameIdXml: 'employee-1', attributes: {} }), keys.idp);
      return base64(responseXml({ inner: good + assertionXml(baseAssertion(id)), inResponseTo: id, destination: ACS }));
    }),
  );
  await t.test('a response signed by the IdP wraps an evil assertion in place of the one it signed (XSW)', (t) =>
    forged(t, (id) => {
      const honest = responseXml({
        id: '_resp1',
        inner: assertionXml(baseAssertion(id, { nameIdXml: 'employee-1', attributes: {} })),
        inResponseTo: id,
        destination: ACS,
      });
      const signed = signElement(honest, '_resp1', keys.idp);
      const evil = assertionXml(baseAssertion(id));
      return base64(signed.replace(/<saml:Assertion [\s\S]*<\/saml:Assertion>/, evil));
    }),
  );
  await t.test('a response signed by the IdP carries an unsigned assertion (WantAssertionsSigned)', (t) =>
    forged(t, (id) => {
      const honest = responseXml({ id: '_resp2', inner: assertionXml(baseAssertion(id)), inResponseTo: id, destination: ACS });
      return base64(signElement(honest, '_resp2', keys.idp));
    }),
  );
  await t.test('the Audience is another SP (Core 2.5.1.4)', (t) =>
    forged(t, (id) =>
      base64(
        responseXml({
          inner: signedAssertion(baseAssertion(id, { audience: 'https://other-sp.example' }), keys.idp),
          inResponseTo: id,
          destination: ACS,
        }),
      ),
    ),
  );
  await t.test('the bearer Recipient is another ACS (Profiles 4.1.4.2)', (t) =>
    forged(t, (id) =>
      base64(
        responseXml({
          inner: signedAssertion(baseAssertion(id, { recipient: 'https://other-sp.example/acs' }), keys.idp),
          inResponseTo: id,
          destination: ACS,
        }),
      ),
    ),
  );
  await t.test('the Destination is another ACS (Core 3.2.2)', (t) =>
    forged(t, (id) =>
      base64(
        responseXml({ inner: signedAssertion(baseAssertion(id), keys.idp), inResponseTo: id, destination: 'https://other-sp.example/acs' }),
      ),
    ),
  );
  await t.test('the assertion has expired (Core 2.5.1.2)', (t) =>
    forged(t, (id) => {
      const past = new Date(Date.now() - 3_600_000);
      return base64(
        responseXml({
          inner: signedAssertion(baseAssertion(id, { now: past, notOnOrAfter: new Date(past.getTime() + 300_000) }), keys.idp),
          inResponseTo: id,
          destination: ACS,
        }),
      );
    }),
  );
  await t.test('the assertion is not valid yet (Core 2.5.1.2)', (t) =>
    forged(t, (id) => {
      const future = new Date(Date.now() + 3_600_000);
      return base64(
        responseXml({
          inner: signedAssertion(
            baseAssertion(id, { now: future, notBefore: future, notOnOrAfter: new Date(future.getTime() + 300_000) }),
            keys.idp,
          ),
          inResponseTo: id,
          destination: ACS,
        }),
      );
    }),
  );
  await t.test('it answers a request this browser did not send (Profiles 4.1.4.5 InResponseTo)', (t) =>
    forged(t, () => {
      const other = '_someone-elses-request';
      return base64(responseXml({ inner: signedAssertion(baseAssertion(other), keys.idp), inResponseTo: other, destination: ACS }));
    }),
  );
  await t.test('it is unsolicited and the connection takes none (Profiles 4.1.5)', (t) =>
    forged(
      t,
      () => base64(responseXml({ inner: signedAssertion(baseAssertion('', { inResponseTo: null }), keys.idp), destination: ACS })),
      () => undefined,
    ),
  );
  await t.test('it carries a DOCTYPE with an entity (no DTD is ever parsed)', (t) =>
    forged(t, (id) => {
      const signed = responseXml({ inner: signedAssertion(baseAssertion(id), keys.idp), inResponseTo: id, destination: ACS });
      return base64(`<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>${signed}`);
    }),
  );
  await t.test('it is over the size cap, refused before parsing', async (t) => {
    const started = await startSamlSignIn(server);
    const before = await counts(server);
    const huge = base64(`<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">${'A'.repeat(300 * 1024)}</samlp:Response>`);
    const answer = await postToAcs(server, started.browser, huge, started.relayState);
    t.ok(answer.statusCode === 400 || answer.statusCode === 413, 'refused');
    t.notOk(answer.headers.location);
    t.same(await counts(server), before, 'nothing stored');
  });
  await t.test(
    "it is posted in another browser than the one that sent the request (Profiles 4.1.4.5, another browser's request)",
    async (t) => {
      const started = await startSamlSignIn(server);
      const before = await counts(server);
      const id = started.requestId;
      const xml = base64(responseXml({ inner: signedAssertion(baseAssertion(id), keys.idp), inResponseTo: id, destination: ACS }));
      const answer = await postToAcs(server, new Browser(), xml, started.relayState);
      await assertRefused(t, server, answer, before);
    },
  );
});

t.test('a replayed assertion ID is refused (Profiles 4.1.4.5)', async (t) => {
  const { server, keys } = await samlApp(t);
  const first = await startSamlSignIn(server);
  const assertionId = '_replayed-assertion-0001';
  const xml = (requestId: string) =>
    base64(
      responseXml({
        inner: signedAssertion(baseAssertion(requestId, { id: assertionId, nameIdXml: 'employee-9', attributes: {} }), keys.idp),
        inResponseTo: requestId,
        destination: ACS,
      }),
    );
  const ok = await postToAcs(server, first.browser, xml(first.requestId), first.relayState);
  t.equal(ok.statusCode, 303, 'the first use signs in');
  const second = await startSamlSignIn(server);
  const before = await counts(server);
  const answer = await postToAcs(server, second.browser, xml(second.requestId), second.relayState);
  await assertRefused(t, server, answer, before);
});

t.test('a comment inside the signed NameID does not cut it short (the user@evil.test<!---->.example.org trick)', async (t) => {
  const { server, keys } = await samlApp(t);
  const started = await startSamlSignIn(server);
  const assertion = signedAssertion(
    baseAssertion(started.requestId, { nameIdXml: 'user@evil.test<!---->.example.org', attributes: {} }),
    keys.idp,
  );
  const answer = await postToAcs(
    server,
    started.browser,
    base64(responseXml({ inner: assertion, inResponseTo: started.requestId, destination: ACS })),
    started.relayState,
  );
  const claims = await followToIdToken(server, started, answer);
  t.equal(claims?.email, 'user@evil.test.example.org', 'the whole address, read across the comment');
  const link = await server.db.selectFrom('connection_links').select('subject').executeTakeFirstOrThrow();
  t.equal(link.subject, 'user@evil.test.example.org');
});

t.test('an unsolicited response is taken where the connection allows it, and signs in to the account page (Profiles 4.1.5)', async (t) => {
  const { server } = await samlApp(t, { saml_allow_unsolicited: true });
  const { idp } = await testKeys();
  const browser = new Browser();
  const answer = await postToAcs(
    server,
    browser,
    base64(
      responseXml({ inner: signedAssertion(baseAssertion('', { inResponseTo: null, nameIdXml: 'employee-77' }), idp), destination: ACS }),
    ),
  );
  t.equal(answer.statusCode, 303, answer.body);
  t.equal(answer.headers.location, 'http://localhost:3000/sso/account');
  t.ok(
    answer.cookies.some((c) => c.name.includes('sso_session')),
    'signed in',
  );
  const withRequest = await postToAcs(
    server,
    browser,
    base64(responseXml({ inner: signedAssertion(baseAssertion('_never-sent'), idp), inResponseTo: '_never-sent', destination: ACS })),
  );
  t.equal(withRequest.statusCode, 400, 'but one naming a request nobody here sent is not');
});

t.test("the validity window is read on the provider's clock, not the host's (Core 2.5.1.2)", async (t) => {
  const { server, keys } = await samlApp(t);
  server.advance(400);
  const hostNow = Date.now();
  const stale = await startSamlSignIn(server);
  const validByHostClock = signedAssertion(
    baseAssertion(stale.requestId, { now: new Date(hostNow), notOnOrAfter: new Date(hostNow + 300_000), nameIdXml: 'employee-5' }),
    keys.idp,
  );
  const refused = await postToAcs(
    server,
    stale.browser,
    base64(responseXml({ inner: validByHostClock, inResponseTo: stale.requestId, destination: ACS })),
    stale.relayState,
  );
  t.equal(refused.statusCode, 400, 'valid by the host clock, expired by the provider clock: refused');

  const fresh = await startSamlSignIn(server);
  const validByProviderClock = signedAssertion(
    baseAssertion(fresh.requestId, {
      now: new Date(hostNow + 400_000),
      notBefore: new Date(hostNow + 390_000),
      notOnOrAfter: new Date(hostNow + 700_000),
      nameIdXml: 'employee-5',
    }),
    keys.idp,
  );
  const accepted = await postToAcs(
    server,
    fresh.browser,
    base64(responseXml({ inner: validByProviderClock, inResponseTo: fresh.requestId, destination: ACS })),
    fresh.relayState,
  );
  t.equal(accepted.statusCode, 303, 'not yet valid by the host clock, valid by the provider clock: taken');
});
