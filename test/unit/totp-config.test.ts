// TOTP_ISSUER: the name authenticator apps show beside the user's codes.
import t from 'tap';
import { ConfigError, loadConfig } from '../../src/config.js';

t.test('TOTP_ISSUER defaults to the host name of BASE_URL', async (t) => {
  t.equal(loadConfig({}).totpIssuer, 'localhost');
  t.equal(loadConfig({ BASE_URL: 'https://id.example.com:8443', ALLOW_UNENCRYPTED_KEYS: 'true' }).totpIssuer, 'id.example.com');
  t.equal(loadConfig({ BASE_URL: 'http://[::1]:3000' }).totpIssuer, 'SSO', 'an IPv6 address has colons, which the URI label may not');
});

t.test('TOTP_ISSUER may name the service, and is refused with a colon or above 64 characters', async (t) => {
  t.equal(loadConfig({ TOTP_ISSUER: 'Example SSO' }).totpIssuer, 'Example SSO');
  for (const bad of ['Example:SSO', 'x'.repeat(65)]) {
    t.throws(() => loadConfig({ TOTP_ISSUER: bad }), ConfigError, bad);
    try {
      loadConfig({ TOTP_ISSUER: bad });
    } catch (err) {
      t.match((err as ConfigError).problems.join('\n'), /^TOTP_ISSUER must be/m);
    }
  }
});
