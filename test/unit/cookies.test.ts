// The provider's cookies (src/http/cookies.ts): on an http issuer each travels under the issuer's own path (BASE_URL's
// path, then /sso); on an https issuer each is "__Host-" prefixed with Path=/ (RFC 6265bis 4.1.3.2).
import t from 'tap';
import {
  accountSignInCookie,
  challengeCookie,
  deviceCookie,
  deviceFlowCookie,
  interactionCookie,
  sessionCookie,
  type CookieSpec,
} from '../../src/http/cookies.js';
import { testConfig } from '../helpers/app.js';
import type { Config } from '../../src/config.js';

const all = (config: Config): CookieSpec[] => [
  sessionCookie(config),
  interactionCookie(config, 'abc'),
  deviceCookie(config),
  challengeCookie(config),
  deviceFlowCookie(config),
  accountSignInCookie(config),
];

const shape = (c: CookieSpec) => ({ name: c.name, path: c.options.path, secure: c.options.secure });

t.test('on an http issuer each cookie is scoped to its part of the issuer path', async (t) => {
  t.same(all(testConfig({ BASE_URL: 'http://localhost:3000' })).map(shape), [
    { name: 'sso_session', path: '/sso', secure: false },
    { name: 'sso_interaction', path: '/sso/interaction/abc', secure: false },
    { name: 'sso_device', path: '/sso', secure: false },
    { name: 'sso_challenge', path: '/sso/sign-in', secure: false },
    { name: 'sso_device_flow', path: '/sso/device', secure: false },
    { name: 'sso_account_sign_in', path: '/sso/account', secure: false },
  ]);
});

t.test('a BASE_URL with a path moves every cookie path under it, as the issuer is', async (t) => {
  const config = testConfig({ BASE_URL: 'http://localhost:3000/auth' });
  t.equal(config.issuer, 'http://localhost:3000/auth/sso');
  t.same(
    all(config).map((c) => c.options.path),
    ['/auth/sso', '/auth/sso/interaction/abc', '/auth/sso', '/auth/sso/sign-in', '/auth/sso/device', '/auth/sso/account'],
  );
  // The path as the issuer's URL has it: percent-encoded, one slash before /sso (BASE_URL's trailing ones dropped).
  for (const base of ['http://localhost:3000/a%20b/', 'http://localhost:3000/a b//']) {
    const encoded = testConfig({ BASE_URL: base });
    t.equal(sessionCookie(encoded).options.path, new URL(encoded.issuer).pathname, base);
    t.equal(sessionCookie(encoded).options.path, '/a%20b/sso', base);
  }
});

t.test('on an https issuer every cookie is __Host- prefixed, Secure, with Path=/ (RFC 6265bis 4.1.3.2)', async (t) => {
  const config = testConfig({ BASE_URL: 'https://sso.example.com', KEYS_ENCRYPTION_SECRET: 'k'.repeat(32) });
  t.same(all(config).map(shape), [
    { name: '__Host-sso_session', path: '/', secure: true },
    { name: '__Host-sso_interaction_abc', path: '/', secure: true },
    { name: '__Host-sso_device', path: '/', secure: true },
    { name: '__Host-sso_challenge', path: '/', secure: true },
    { name: '__Host-sso_device_flow', path: '/', secure: true },
    { name: '__Host-sso_account_sign_in', path: '/', secure: true },
  ]);
  for (const c of all(config)) t.match(c.options, { httpOnly: true, sameSite: 'lax' });
  t.equal(sessionCookie(config).options.maxAge, config.sessionTtlSeconds);
  t.equal(deviceFlowCookie(config).options.maxAge, config.deviceFlow.codeTtlSeconds);
});
