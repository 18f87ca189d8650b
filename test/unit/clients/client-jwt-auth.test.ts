// The rules of JWT client authentication that need no server: where a jwks_uri may be fetched from, which seed
// entries the new methods accept, and the key sets a client may register.
import t from 'tap';
import { clientEntryProblems } from '../../../src/domain/client-entry.js';
import { jwksProblem, jwksUriPolicy } from '../../../src/domain/clients/client-jwks.js';

const outbound = { allowNetworks: [] };
const policy = (issuer: string, uri: string) => jwksUriPolicy({ issuer, outbound }, new URL(uri));

t.test('a jwks_uri is https, and never a private or loopback address unless the issuer itself is on loopback', async (t) => {
  t.match(policy('https://sso.example/sso', 'http://keys.example/jwks'), /must use https/, 'plain http off loopback');
  t.match(policy('https://sso.example/sso', 'http://127.0.0.1/jwks'), /must use https/, 'http on loopback while the issuer is https');
  t.match(policy('https://sso.example/sso', 'https://keys.example/jwks'), { httpsOnly: false, publicAddressesOnly: true }, 'public only');
  t.match(
    policy('http://localhost:3000/sso', 'http://127.0.0.1:9/jwks'),
    { publicAddressesOnly: false },
    'a development issuer on loopback',
  );
  t.match(policy('http://localhost:3000/sso', 'http://keys.example/jwks'), /must use https/, 'http only on loopback even then');
  t.match(policy('https://sso.example/sso', 'ftp://keys.example/jwks'), /must use https/);
});

t.test('RFC 7517: a registered key set holds public signing keys only', async (t) => {
  t.equal(jwksProblem({ keys: [{ kty: 'EC', crv: 'P-256', x: 'AA', y: 'BB', kid: '1' }] }), undefined);
  t.equal(jwksProblem({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'AA', use: 'sig' }] }), undefined);
  t.match(jwksProblem({ keys: [] }), /non-empty/);
  t.match(jwksProblem([]), /JWK Set/);
  t.match(jwksProblem({ keys: [{ kty: 'RSA', n: 'AA', e: 'AQAB', d: 'AA' }] }), /must be a public key/);
  t.match(jwksProblem({ keys: [{ kty: 'oct', k: 'AA' }] }), /kty RSA, EC or OKP/, 'a symmetric key');
  t.match(jwksProblem({ keys: [{ kty: 'EC', crv: 'P-256', x: 'AA' }] }), /must have crv, x, y/);
  t.match(jwksProblem({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'AA', use: 'enc' }] }), /signing key/);
  t.match(jwksProblem({ keys: Array.from({ length: 21 }, () => ({ kty: 'OKP', crv: 'Ed25519', x: 'AA' })) }), /at most 20 keys/);
});

t.test('the seed file: private_key_jwt needs keys and no secret; client_secret_jwt a secret long enough for HS256', async (t) => {
  const base = { client_id: 'c', redirect_uris: ['https://c.example/cb'] };
  const jwks = { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'AA' }] };
  t.same(clientEntryProblems({ ...base, token_endpoint_auth_method: 'private_key_jwt', jwks }), []);
  t.same(clientEntryProblems({ ...base, token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://c.example/jwks' }), []);
  t.match(clientEntryProblems({ ...base, token_endpoint_auth_method: 'private_key_jwt' }), [/needs its public keys/]);
  t.match(clientEntryProblems({ ...base, token_endpoint_auth_method: 'private_key_jwt', jwks, client_secret: 'x'.repeat(40) }), [
    /must not have a client_secret/,
  ]);
  t.same(clientEntryProblems({ ...base, token_endpoint_auth_method: 'client_secret_jwt', client_secret: 'x'.repeat(32) }), []);
  t.match(clientEntryProblems({ ...base, token_endpoint_auth_method: 'client_secret_jwt', client_secret: 'x'.repeat(20) }), [
    /at least 32 characters/,
  ]);
  t.match(clientEntryProblems({ ...base, token_endpoint_auth_method: 'client_secret_jwt' }), [/client_secret must be a non-empty string/]);
  t.match(clientEntryProblems({ ...base, client_secret: 'x'.repeat(20), token_endpoint_auth_signing_alg: 'HS256' }), [
    /only for client_secret_jwt and private_key_jwt/,
  ]);
});
