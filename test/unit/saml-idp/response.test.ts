// The identity provider's Response as a real service provider library reads it: node-saml checks the signatures
// (assertion and/or response), the audience, the recipient and InResponseTo (SAML Core 2.0 §2.3.3, Profiles §4.1.4.2).
import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import t from 'tap';
import { decodeRedirectMessage, encodePostMessage } from '../../../src/domain/saml/bindings.js';
import { AUTHN_CONTEXT, STATUS } from '../../../src/domain/saml/namespaces.js';
import { failureResponseXml, successResponseXml, type SuccessInput } from '../../../src/domain/saml/idp/saml-response.js';
import { generateSamlKey } from '../../../src/domain/keys/saml-keys.js';

const ISSUER = 'https://idp.example.test/sso';
const SP = 'https://sp.example.test/saml';
const ACS = 'https://sp.example.test/saml/acs';
const key = await generateSamlKey(ISSUER, new Date());
const otherKey = await generateSamlKey(ISSUER, new Date());

function sp(options: Partial<ConstructorParameters<typeof SAML>[0]> = {}): SAML {
  return new SAML({
    idpCert: key.certificatePem,
    issuer: SP,
    callbackUrl: ACS,
    audience: SP,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: true,
    validateInResponseTo: ValidateInResponseTo.never,
    ...options,
  });
}

function input(overrides: Partial<SuccessInput> = {}): SuccessInput {
  return {
    issuer: ISSUER,
    audience: SP,
    acsUrl: ACS,
    inResponseTo: '_request1',
    nameId: 'alice@example.test',
    nameIdFormat: 'email',
    sessionIndex: 'sid-1',
    authnInstant: new Date(),
    authnContextClassRef: AUTHN_CONTEXT.passwordProtectedTransport,
    attributes: [
      { name: 'email', values: ['alice@example.test'] },
      { name: 'groups', values: ['staff', 'admins'] },
      { name: 'https://aws.amazon.com/SAML/Attributes/RoleSessionName', values: ['alice'] },
    ],
    now: new Date(),
    key,
    signAssertion: true,
    signResponse: true,
    ...overrides,
  };
}

const post = (xml: string) => ({ SAMLResponse: encodePostMessage(xml) });

t.test(
  'node-saml accepts a response with signed assertion and response, and reads NameID and attributes (Profiles §4.1.4.2)',
  async (t) => {
    const { profile, loggedOut } = await sp().validatePostResponseAsync(post(await successResponseXml(input())));
    t.equal(loggedOut, false);
    t.equal(profile!.nameID, 'alice@example.test');
    t.equal(profile!.nameIDFormat, 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress');
    t.equal(profile!.sessionIndex, 'sid-1');
    t.equal(profile!.issuer, ISSUER);
    t.equal(profile!.email, 'alice@example.test');
    t.same(profile!.groups, ['staff', 'admins']);
    t.equal(profile!['https://aws.amazon.com/SAML/Attributes/RoleSessionName'], 'alice');
  },
);

t.test('an SP wanting only a signed assertion accepts one whose response is unsigned, and the reverse (Core §5)', async (t) => {
  const assertionOnly = await successResponseXml(input({ signResponse: false }));
  await t.resolves(sp({ wantAuthnResponseSigned: false }).validatePostResponseAsync(post(assertionOnly)));
  await t.rejects(sp({ wantAuthnResponseSigned: true }).validatePostResponseAsync(post(assertionOnly)));
  const responseOnly = await successResponseXml(input({ signAssertion: false }));
  await t.resolves(sp({ wantAssertionsSigned: false }).validatePostResponseAsync(post(responseOnly)));
});

t.test('a response is refused by an SP that trusts another certificate', async (t) => {
  await t.rejects(
    sp({ idpCert: otherKey.certificatePem }).validatePostResponseAsync(post(await successResponseXml(input()))),
    /signature/i,
  );
});

t.test('a response for another audience is refused by the SP (Core §2.5.1.4 AudienceRestriction)', async (t) => {
  await t.rejects(
    sp().validatePostResponseAsync(post(await successResponseXml(input({ audience: 'https://other.example' })))),
    /audience/i,
  );
});

t.test('the InResponseTo of a request the SP made is accepted, another is refused (Profiles §4.1.4.3)', async (t) => {
  const saml = sp({ validateInResponseTo: ValidateInResponseTo.always, entryPoint: 'https://idp.example.test/sso/saml/sso' });
  const url = new URL(await saml.getAuthorizeUrlAsync('', undefined, {}));
  const request = decodeRedirectMessage(url.searchParams.get('SAMLRequest')!);
  const id = /ID="([^"]+)"/.exec(request)![1]!;
  await t.resolves(saml.validatePostResponseAsync(post(await successResponseXml(input({ inResponseTo: id })))));
  await t.rejects(saml.validatePostResponseAsync(post(await successResponseXml(input({ inResponseTo: '_forged' })))), /InResponseTo/);
});

t.test('an expired assertion is refused by the SP (Core §2.5.1.2 NotOnOrAfter)', async (t) => {
  const old = new Date(Date.now() - 3600_000);
  await t.rejects(
    sp().validatePostResponseAsync(post(await successResponseXml(input({ now: old, authnInstant: old })))),
    /expired|NotOnOrAfter/i,
  );
});

t.test('a persistent NameID carries its qualifiers (Core §8.3.7)', async (t) => {
  const xml = await successResponseXml(input({ nameIdFormat: 'persistent', nameId: 'opaque-1' }));
  t.match(xml, `NameQualifier="${ISSUER}"`);
  t.match(xml, `SPNameQualifier="${SP}"`);
  const { profile } = await sp().validatePostResponseAsync(post(xml));
  t.equal(profile!.nameID, 'opaque-1');
});

t.test('a signed NoPassive response carries the status and no assertion, and the SP signs nobody in (Core §3.2.2.2)', async (t) => {
  const xml = failureResponseXml({
    issuer: ISSUER,
    acsUrl: ACS,
    inResponseTo: '_r',
    status: STATUS.responder,
    subStatus: STATUS.noPassive,
    now: new Date(),
    key,
  });
  t.notMatch(xml, /Assertion/);
  const { profile } = await sp().validatePostResponseAsync(post(xml));
  t.equal(profile, null, 'node-saml reads the signed NoPassive as "nobody signed in"');
});

t.test('a value with markup in it stays text: an attribute cannot add elements', async (t) => {
  const xml = await successResponseXml(input({ attributes: [{ name: 'displayName', values: ['</saml:AttributeValue><x/>'] }] }));
  const { profile } = await sp().validatePostResponseAsync(post(xml));
  t.equal(profile!.displayName, '</saml:AttributeValue><x/>');
});

t.test('an assertion encrypted for the SP is decrypted and accepted by node-saml, and no one else reads it (Core §2.3.4)', async (t) => {
  const spKey = await generateSamlKey('https://sp.example.test', new Date());
  const xml = await successResponseXml(input({ encryptFor: spKey.certificatePem }));
  t.match(xml, /<saml:EncryptedAssertion/);
  t.notMatch(xml, /alice@example\.test/, 'the NameID and attributes travel encrypted');
  t.match(xml, 'http://www.w3.org/2009/xmlenc11#aes256-gcm');
  const { profile } = await sp({ decryptionPvk: spKey.privateKeyPem }).validatePostResponseAsync(post(xml));
  t.equal(profile!.nameID, 'alice@example.test');
  t.equal(profile!.email, 'alice@example.test');
  await t.rejects(sp({ decryptionPvk: otherKey.privateKeyPem }).validatePostResponseAsync(post(xml)));
});
