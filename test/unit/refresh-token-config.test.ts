// REFRESH_TOKEN_TTL_SECONDS: its documented default and its bounds.
import t from 'tap';
import { ConfigError, loadConfig } from '../../src/config.js';

t.test('REFRESH_TOKEN_TTL_SECONDS defaults to 14 days', async (t) => {
  t.equal(loadConfig({}).refreshTokenTtlSeconds, 1_209_600);
  t.equal(loadConfig({ REFRESH_TOKEN_TTL_SECONDS: '86400' }).refreshTokenTtlSeconds, 86_400);
});

t.test('a REFRESH_TOKEN_TTL_SECONDS out of bounds or not a whole number is refused with a message naming it', async (t) => {
  for (const value of ['59', '31536001', '3.5', 'two weeks', '-1']) {
    t.throws(() => loadConfig({ REFRESH_TOKEN_TTL_SECONDS: value }), {
      constructor: ConfigError,
      message: new RegExp(`REFRESH_TOKEN_TTL_SECONDS must be a whole number from 60 to 31536000 \\(got "${value.replace('.', '\\.')}"\\)`),
    });
  }
});
