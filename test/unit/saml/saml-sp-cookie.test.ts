// The SAML twin of the upstream cookie (src/http/cookies.ts, issue 39): an IdP's Response comes as a cross-site POST
// (SAML Bindings 3.5), which carries a SameSite=None cookie only; on https it is that, "__Host-" prefixed and Secure
// (RFC 6265bis 4.1.3.2, 5.4.7); on http (one site in development) it stays Lax like the provider's other cookies.
import t from 'tap';
import { samlUpstreamCookie, upstreamCookie } from '../../../src/http/cookies.js';
import { testConfig } from '../../helpers/app.js';

t.test('on https the SAML twin of the upstream cookie is SameSite=None, Secure and __Host- prefixed', async (t) => {
  const config = testConfig({ BASE_URL: 'https://login.example', KEYS_ENCRYPTION_SECRET: 'k'.repeat(32) });
  const twin = samlUpstreamCookie(config);
  t.match(twin, { name: '__Host-sso_saml_upstream', options: { sameSite: 'none', secure: true, path: '/', httpOnly: true } });
  t.equal(upstreamCookie(config).options.sameSite, 'lax', 'the OAuth upstream cookie stays Lax');
});

t.test('on http it is Lax, under the connections path', async (t) => {
  const twin = samlUpstreamCookie(testConfig({ BASE_URL: 'http://localhost:3000' }));
  t.match(twin, { name: 'sso_saml_upstream', options: { sameSite: 'lax', secure: false, path: '/sso/connections' } });
});
