// ID tokens per algorithm: at_hash with the alg's hash (OIDC Core 3.1.3.6) and the signature with the alg's key.
import { createHash } from 'node:crypto';
import { importJWK, jwtVerify, decodeProtectedHeader } from 'jose';
import t from 'tap';
import { generateSigningKey, type GeneratedKey } from '../../../src/domain/keys/key-generation.js';
import type { KeyStore, SigningKey } from '../../../src/domain/keys/keys.js';
import { accessTokenHash, signIdToken } from '../../../src/domain/tokens/id-token.js';
import { SIGNING_ALGS, type SigningAlg } from '../../../src/domain/keys/signing-algs.js';

// The example of panva/oidc-token-hash's README: this access token's RS256 at_hash.
const README_TOKEN =
  'YmJiZTAwYmYtMzgyOC00NzhkLTkyOTItNjJjNDM3MGYzOWIy9sFhvH8K_x8UIHj1osisS57f5DduL-ar_qw5jl3lthwpMjm283aVMQXDmoqqqydDSqJfbhptzw8rUVwkuQbolw';

t.test('at_hash is the left half of the SHA-256 digest for RS256, PS256 and ES256 (OIDC Core 3.1.3.6)', async (t) => {
  t.equal(accessTokenHash(README_TOKEN, 'RS256'), 'x7vk7f6BvQj0jQHYFIk4ag');
  t.equal(accessTokenHash(README_TOKEN), 'x7vk7f6BvQj0jQHYFIk4ag', 'RS256 is the default');
  t.equal(accessTokenHash(README_TOKEN, 'PS256'), 'x7vk7f6BvQj0jQHYFIk4ag');
  t.equal(accessTokenHash(README_TOKEN, 'ES256'), 'x7vk7f6BvQj0jQHYFIk4ag');
});

t.test('at_hash for EdDSA over Ed25519 is the left half of the SHA-512 digest (OIDC Core 3.1.3.6)', async (t) => {
  const expected = createHash('sha512').update(README_TOKEN).digest().subarray(0, 32).toString('base64url');
  t.equal(accessTokenHash(README_TOKEN, 'EdDSA'), expected);
  t.equal(accessTokenHash(README_TOKEN, 'EdDSA').length, 43, '256 bits, base64url without padding');
});

const generated = new Map<SigningAlg, GeneratedKey>();
const signers = new Map<SigningAlg, SigningKey>();
for (const alg of SIGNING_ALGS) {
  const key = await generateSigningKey(alg);
  generated.set(alg, key);
  signers.set(alg, { kid: key.kid, alg, privateKey: await importJWK(key.privateJwk, alg) });
}
const keys: Pick<KeyStore, 'signer'> = {
  signer: (alg) => signers.get(alg)!,
};
const input = {
  issuer: 'https://op.example/sso',
  subject: 'user-1',
  audience: 'client-1',
  authTime: new Date('2026-01-01T00:00:00Z'),
  nonce: 'n-0S6_WzA2Mj',
  accessToken: README_TOKEN,
  now: new Date(),
  ttlSeconds: 600,
};

t.test('an ID token is signed with the key of the requested algorithm, and with RS256 by default (OIDC Registration 2)', async (t) => {
  t.equal(decodeProtectedHeader(await signIdToken(keys, input)).alg, 'RS256');
  for (const alg of SIGNING_ALGS) {
    const token = await signIdToken(keys, { ...input, alg });
    const key = generated.get(alg)!;
    const { payload, protectedHeader } = await jwtVerify(token, await importJWK(key.publicJwk, alg), {
      algorithms: [alg],
      issuer: input.issuer,
      audience: input.audience,
    });
    t.same(protectedHeader, { alg, kid: key.kid, typ: 'JWT' }, `${alg} header`);
    t.equal(payload.at_hash, accessTokenHash(README_TOKEN, alg), `${alg} at_hash uses the ${alg} hash`);
    t.equal(payload.nonce, input.nonce);
  }
});

t.test('each algorithm gets a key of its own type, named by its RFC 7638 thumbprint, with no private member published', async (t) => {
  t.match(generated.get('RS256')!.publicJwk, { kty: 'RSA', alg: 'RS256', use: 'sig', e: 'AQAB' });
  t.match(generated.get('PS256')!.publicJwk, { kty: 'RSA', alg: 'PS256', use: 'sig', e: 'AQAB' });
  t.match(generated.get('ES256')!.publicJwk, { kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
  t.match(generated.get('EdDSA')!.publicJwk, { kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
  t.equal(Buffer.from(generated.get('RS256')!.publicJwk.n!, 'base64url').length, 256, 'a 2048-bit modulus');
  for (const key of generated.values()) {
    t.notOk('d' in key.publicJwk, `${key.alg}: no private member`);
    t.ok('d' in key.privateJwk, `${key.alg}: the private JWK has d`);
    t.match(key.kid, /^[A-Za-z0-9_-]{43}$/);
  }
  t.equal(new Set([...generated.values()].map((k) => k.kid)).size, 4, 'four distinct kids');
});
