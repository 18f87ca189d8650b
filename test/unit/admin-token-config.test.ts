// ADMIN_API_TOKEN: unset turns admin access to the security events off; a set token must be strong and sendable as
// an RFC 6750 bearer token.
import t from 'tap';
import { ConfigError, loadConfig } from '../../src/config.js';

const MESSAGE = 'ADMIN_API_TOKEN must be at least 32 characters of base64 or base64url (e.g. openssl rand -base64 32)';

t.test('without ADMIN_API_TOKEN (or with an empty one) there is no admin token', async (t) => {
  t.equal(loadConfig({}).adminApiToken, undefined);
  t.equal(loadConfig({ ADMIN_API_TOKEN: '  ' }).adminApiToken, undefined);
});

t.test('a base64 or base64url token of 32 characters or more is taken as it is, trimmed', async (t) => {
  t.equal(loadConfig({ ADMIN_API_TOKEN: ' q83vEjRWeJq83vEjRWeJq83vEjRWeJq8+/A= ' }).adminApiToken, 'q83vEjRWeJq83vEjRWeJq83vEjRWeJq8+/A=');
  t.equal(loadConfig({ ADMIN_API_TOKEN: 'a'.repeat(32) }).adminApiToken, 'a'.repeat(32));
});

t.test('a short token, or one a Bearer header cannot carry, is refused by name', async (t) => {
  for (const token of ['a'.repeat(31), `${'a'.repeat(32)} b`, `${'a'.repeat(32)}"`, `=${'a'.repeat(32)}`]) {
    t.throws(() => loadConfig({ ADMIN_API_TOKEN: token }), new ConfigError([MESSAGE]), JSON.stringify(token));
  }
});
