// Signing in through a saml connection (issue 39): the button sends a signed AuthnRequest over HTTP-Redirect, the
// IdP's signed Response at the ACS provisions and signs in the person, the mapped attributes reach the ID token, and
// the second sign-in is the same user through its link.
import { createPublicKey, createVerify } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import t from 'tap';
import { sql } from 'kysely';
import { accountPage, accountSignIn } from '../../helpers/account.js';
import { ALICE } from '../../helpers/app.js';
import {
  assertionIdOf,
  assertionXml,
  base64,
  encryptedAssertion,
  IDP_SSO_URL,
  responseXml,
  signElement,
} from '../../helpers/saml-sp-idp.js';
import { ACS, SP_ENTITY_ID, followToIdToken, postToAcs, samlApp, startSamlSignIn } from '../../helpers/saml-sp-flow.js';

const OKTA_ATTRIBUTES = {
  email: ['ada@corp.example'],
  firstName: ['Ada'],
  lastName: ['Lovelace'],
  groups: ['engineering', 'admins'],
};

t.test('the button sends a signed AuthnRequest to the IdP and the signed response signs the person in (Profiles 4.1)', async (t) => {
  const { server, keys } = await samlApp(t);
  const started = await startSamlSignIn(server);
  t.equal(`${started.redirect.origin}${started.redirect.pathname}`, IDP_SSO_URL, 'to the HTTP-Redirect SingleSignOnService');
  t.ok(started.requestId.startsWith('_'), 'the request has an xs:ID');
  // SAML Bindings 3.4.4.1: the signature covers SAMLRequest, RelayState and SigAlg, in that order, as sent.
  const query = started.redirect.search.slice(1);
  const signed = query
    .split('&')
    .filter((p) => !p.startsWith('Signature='))
    .join('&');
  const verify = createVerify('RSA-SHA256').update(signed);
  t.ok(
    verify.verify(createPublicKey(keys.sp.certificatePem), Buffer.from(decodeURIComponent(/Signature=([^&]+)/.exec(query)![1]!), 'base64')),
    'the AuthnRequest is signed with our SAML key',
  );
  const assertion = assertionXml({
    audience: SP_ENTITY_ID,
    recipient: ACS,
    inResponseTo: started.requestId,
    attributes: OKTA_ATTRIBUTES,
  });
  const response = responseXml({
    inner: signElement(assertion, assertionIdOf(assertion), keys.idp),
    destination: ACS,
    inResponseTo: started.requestId,
  });
  const answer = await postToAcs(server, started.browser, base64(response), started.relayState);
  t.equal(answer.statusCode, 303, answer.body);
  const claims = await followToIdToken(server, started, answer);
  t.ok(claims, 'the client gets an ID token');
  t.equal(claims?.email, 'ada@corp.example');
  t.equal(claims?.name, 'Ada Lovelace');
  t.same(claims?.amr, ['fed']);
  const link = await server.db.selectFrom('connection_links').selectAll().where('connection_id', '=', 'corp').executeTakeFirstOrThrow();
  t.equal(link.subject, 'employee-4711', 'the persistent NameID is the subject of the link');
  const user = await server.db.selectFrom('users').selectAll().where('id', '=', link.user_id).executeTakeFirstOrThrow();
  t.same((user.claims as { groups?: string[] }).groups, ['engineering', 'admins'], 'the groups attribute is mapped');

  const again = await startSamlSignIn(server);
  const second = assertionXml({ audience: SP_ENTITY_ID, recipient: ACS, inResponseTo: again.requestId, attributes: OKTA_ATTRIBUTES });
  const secondAnswer = await postToAcs(
    server,
    again.browser,
    base64(responseXml({ inner: signElement(second, assertionIdOf(second), keys.idp), destination: ACS, inResponseTo: again.requestId })),
    again.relayState,
  );
  const secondClaims = await followToIdToken(server, again, secondAnswer);
  t.equal(secondClaims?.sub, claims?.sub, 'the second sign-in is the same user');
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM saml_assertions`.execute(server.db);
  t.equal(Number(rows[0]!.n), 2, 'each assertion ID is kept against its replay');
});

t.test('our SP metadata names the ACS, signed requests, signed assertions and our certificates (Metadata 2.4.4)', async (t) => {
  const { server, keys } = await samlApp(t);
  const res = await server.app.inject({ method: 'GET', url: '/sso/connections/corp/saml/metadata' });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^application\/samlmetadata\+xml/);
  t.match(res.body, `entityID="${SP_ENTITY_ID}"`);
  t.match(res.body, /AuthnRequestsSigned="true"/);
  t.match(res.body, /WantAssertionsSigned="true"/);
  t.match(res.body, `Location="${ACS}"`);
  t.match(res.body, /use="signing"/);
  t.match(res.body, /use="encryption"/);
  const body = keys.sp.certificatePem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
  t.ok(res.body.replace(/\s+/g, '').includes(body), 'our certificate is published');
  const missing = await server.app.inject({ method: 'GET', url: '/sso/connections/nope/saml/metadata' });
  t.equal(missing.statusCode, 404);
});

t.test('an assertion encrypted for our key signs in; one encrypted for another key is refused (Core 2.3.4, 6.1)', async (t) => {
  const { server, keys } = await samlApp(t);
  const started = await startSamlSignIn(server);
  const assertion = assertionXml({ audience: SP_ENTITY_ID, recipient: ACS, inResponseTo: started.requestId, attributes: OKTA_ATTRIBUTES });
  const signed = signElement(assertion, assertionIdOf(assertion), keys.idp);
  const answer = await postToAcs(
    server,
    started.browser,
    base64(responseXml({ inner: await encryptedAssertion(signed, keys.sp), destination: ACS, inResponseTo: started.requestId })),
    started.relayState,
  );
  t.equal((await followToIdToken(server, started, answer))?.email, 'ada@corp.example', 'decrypted with our key, then verified');

  const again = await startSamlSignIn(server);
  const other = assertionXml({ audience: SP_ENTITY_ID, recipient: ACS, inResponseTo: again.requestId, attributes: OKTA_ATTRIBUTES });
  const refused = await postToAcs(
    server,
    again.browser,
    base64(
      responseXml({
        inner: await encryptedAssertion(signElement(other, assertionIdOf(other), keys.idp), keys.other),
        destination: ACS,
        inResponseTo: again.requestId,
      }),
    ),
    again.relayState,
  );
  t.equal(refused.statusCode, 400, 'a key that is not ours opens nothing');
  t.notOk(refused.headers.location);
});

t.test('a signed-in person links a saml connection from the account page; the NameID then signs them in', async (t) => {
  const { server, keys } = await samlApp(t);
  const alice = await accountSignIn(server.app);
  const { csrf } = await accountPage(server.app, alice);
  const started = await alice.request(server.app, 'POST', '/sso/account/connections/corp/link', { csrf });
  t.equal(started.statusCode, 303);
  const redirect = new URL(String(started.headers.location));
  t.equal(`${redirect.origin}${redirect.pathname}`, IDP_SSO_URL, 'to the IdP with an AuthnRequest');
  const requestId = /ID="([^"]+)"/.exec(inflateRawSync(Buffer.from(redirect.searchParams.get('SAMLRequest')!, 'base64')).toString())![1]!;
  const assertion = assertionXml({ audience: SP_ENTITY_ID, recipient: ACS, inResponseTo: requestId, nameIdXml: 'alice-at-corp' });
  const linked = await postToAcs(
    server,
    alice,
    base64(responseXml({ inner: signElement(assertion, assertionIdOf(assertion), keys.idp), destination: ACS, inResponseTo: requestId })),
    redirect.searchParams.get('RelayState')!,
  );
  t.equal(linked.statusCode, 303, linked.body);
  t.equal(linked.headers.location, 'http://localhost:3000/sso/account', 'back to the account page');
  const link = await server.db.selectFrom('connection_links').selectAll().executeTakeFirstOrThrow();
  const user = await server.db.selectFrom('users').select('username').where('id', '=', link.user_id).executeTakeFirstOrThrow();
  t.same([link.subject, user.username], ['alice-at-corp', 'alice'], 'the NameID is linked to the signed-in user');

  const users = await server.db.selectFrom('users').select('id').execute();
  const next = await startSamlSignIn(server);
  const again = assertionXml({ audience: SP_ENTITY_ID, recipient: ACS, inResponseTo: next.requestId, nameIdXml: 'alice-at-corp' });
  const answer = await postToAcs(
    server,
    next.browser,
    base64(responseXml({ inner: signElement(again, assertionIdOf(again), keys.idp), destination: ACS, inResponseTo: next.requestId })),
    next.relayState,
  );
  const claims = await followToIdToken(server, next, answer);
  t.ok(claims, 'the NameID signs in');
  t.equal(claims?.email, ALICE.email, 'as Alice: the linked user, whose address the IdP did not even send');
  t.equal((await server.db.selectFrom('users').select('id').execute()).length, users.length, 'no user was made');
});
