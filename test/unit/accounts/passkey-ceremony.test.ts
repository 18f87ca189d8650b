// The pure parts of passkeys: the amr a passkey gives (RFC 8176 2), the RP ID and origin taken from the issuer
// (WebAuthn L3 §5.1.2), whether an issuer can offer passkeys at all, and the shape checks of what the browser posts.
import t from 'tap';
import {
  authenticationResponseOf,
  knownTransports,
  parseCredentialJson,
  passkeysOffered,
  registrationResponseOf,
  relyingParty,
  userHandleOf,
} from '../../../src/domain/accounts/passkey-ceremony.js';
import { passkeyAmr } from '../../../src/domain/accounts/passkey-sign-in.js';
import type { ProviderContext } from '../../../src/domain/context.js';
import { testConfig } from '../../helpers/app.js';

const ctxAt = (baseUrl: string) =>
  ({ config: testConfig({ BASE_URL: baseUrl, ALLOW_UNENCRYPTED_KEYS: 'true' }) }) as unknown as ProviderContext;

t.test('RFC 8176 2: hwk for a device-bound passkey, swk for a synced one, user when verified, always mfa', async (t) => {
  t.same(passkeyAmr({ userVerified: true, backedUp: false }), ['hwk', 'user', 'mfa']);
  t.same(passkeyAmr({ userVerified: true, backedUp: true }), ['swk', 'user', 'mfa']);
  t.same(passkeyAmr({ userVerified: false, backedUp: false }, ['pwd']), ['pwd', 'hwk', 'mfa'], 'after a password, presence is enough');
});

t.test("WebAuthn L3 §5.1.2: the RP ID is the issuer's host name, the origin its scheme, host and port", async (t) => {
  t.same(relyingParty(ctxAt('https://sso.example.com:8443/base')), {
    id: 'sso.example.com',
    origin: 'https://sso.example.com:8443',
    name: 'sso.example.com',
  });
  t.ok(passkeysOffered(ctxAt('http://localhost:3000')));
  t.notOk(passkeysOffered(ctxAt('http://127.0.0.1:3000')), 'an IP address is no RP ID');
  t.notOk(passkeysOffered(ctxAt('http://[::1]:3000')), 'nor an IPv6 one');
});

t.test('what the browser posts is read as JSON of a credential, or not at all', async (t) => {
  t.equal(parseCredentialJson('{"id":'), undefined, 'not JSON');
  t.equal(parseCredentialJson(undefined), undefined);
  t.equal(parseCredentialJson('"x"'.padEnd(20_000, ' ')), undefined, 'too long');
  const assertion = {
    id: 'abc',
    rawId: 'abc',
    type: 'public-key',
    response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA', userHandle: 'dXNlcg' },
  };
  t.ok(authenticationResponseOf(assertion));
  t.equal(authenticationResponseOf({ ...assertion, type: 'password' }), undefined);
  t.equal(authenticationResponseOf({ ...assertion, response: { ...assertion.response, signature: 'not base64url!' } }), undefined);
  t.equal(authenticationResponseOf([assertion]), undefined);
  const attestation = {
    id: 'abc',
    rawId: 'abc',
    type: 'public-key',
    response: { clientDataJSON: 'e30', attestationObject: 'AA', transports: ['usb', 'x'] },
  };
  t.same(registrationResponseOf(attestation)?.response.transports, ['usb'], 'unknown transports dropped');
  t.same(knownTransports('internal'), []);
});

t.test('WebAuthn L3 §14.6.1: the user handle is the 16 bytes of the random user id, no personal data', async (t) => {
  t.same(Buffer.from(userHandleOf('0f8fad5b-d9cb-469f-a165-70867728950e')).toString('hex'), '0f8fad5bd9cb469fa16570867728950e');
});
