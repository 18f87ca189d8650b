// The claim vocabulary (src/domain/claims.ts): what the scopes release, what discovery advertises and what a user
// entry takes all come from it, and agree with what the tokens carry.
import { importJWK, decodeJwt } from 'jose';
import t from 'tap';
import { CLAIMS_SUPPORTED, USER_CLAIM_NAMES, USER_CLAIMS } from '../../src/domain/claims.js';
import { scopeClaims } from '../../src/domain/accounts/users.js';
import { generateSigningKey } from '../../src/domain/keys/key-generation.js';
import { SCOPE_CLAIMS, SUPPORTED_SCOPES } from '../../src/domain/scope.js';
import { signIdToken } from '../../src/domain/tokens/id-token.js';
import { userEntryProblems } from '../../src/domain/user-entry.js';

const key = await generateSigningKey('RS256');
const signer = { kid: key.kid, alg: 'RS256' as const, privateKey: await importJWK(key.privateJwk, 'RS256') };

/** A user with a value for every claim, so that every scope releases everything it can. */
const FULL_USER = {
  id: '6f1c1e4e-5f0b-4d7c-9b57-0d8e0f3f6a11',
  username: 'alice',
  email: 'alice@example.com',
  email_verified: true,
  claims: {
    ...Object.fromEntries(
      USER_CLAIM_NAMES.filter((c) => USER_CLAIMS[c].settable && USER_CLAIMS[c].type === 'string').map((c) => [c, `${c} value`]),
    ),
    phone_number_verified: true,
    address: { country: 'GB' },
  },
  updated_at: new Date('2026-01-01T00:00:00Z'),
  locale: 'en',
  local_groups: ['staff'],
};

t.test('every user claim is released by exactly one scope, and the scopes release only user claims (OIDC Core 5.4)', async (t) => {
  const released = Object.values(SCOPE_CLAIMS).flat();
  t.same([...released].sort(), [...USER_CLAIM_NAMES].sort(), 'each claim once, none outside the vocabulary');
});

t.test('discovery advertises exactly the claims an ID token with every scope granted carries (OIDC Discovery 3)', async (t) => {
  // OIDC Discovery 3 claims_supported: "JSON array containing a list of the Claim Names of the Claims that the
  // OpenID Provider MAY be able to supply values for."
  const idToken = await signIdToken(
    { signer: () => signer },
    {
      issuer: 'https://op.example/sso',
      subject: FULL_USER.id,
      audience: 'client-1',
      authTime: new Date(),
      nonce: 'n-0S6_WzA2Mj',
      sid: 'session-1',
      amr: ['pwd', 'otp', 'mfa'],
      acr: 'urn:example:loa:2',
      userClaims: scopeClaims(FULL_USER, SUPPORTED_SCOPES),
      accessToken: 'an-access-token',
      now: new Date(),
      ttlSeconds: 600,
    },
  );
  t.same(Object.keys(decodeJwt(idToken)).sort(), [...CLAIMS_SUPPORTED].sort());
});

t.test('a user entry takes each claim an admin may set, with a value of its type, and refuses the others', async (t) => {
  const entry = { username: 'bob', password: 'a long enough passphrase 2026' };
  const settable = USER_CLAIM_NAMES.filter((c) => USER_CLAIMS[c].settable);
  t.same(userEntryProblems({ ...entry, ...FULL_USER.claims, email: 'bob@example.com', email_verified: false }), []);
  for (const claim of settable) {
    const wrong = USER_CLAIMS[claim].type === 'string' ? 42 : 'text';
    t.equal(userEntryProblems({ ...entry, [claim]: wrong }).length, 1, `${claim} of the wrong type is refused`);
  }
  for (const claim of USER_CLAIM_NAMES.filter((c) => !USER_CLAIMS[c].settable))
    t.match(userEntryProblems({ ...entry, [claim]: 'x' }), [new RegExp(`unknown field "${claim}"`)], `${claim} is the provider's own`);
});
