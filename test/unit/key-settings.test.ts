// The signing key settings: KEYS_ENCRYPTION_SECRET, KEY_ACTIVATION_DELAY_SECONDS, KEYS_REFRESH_SECONDS.
import t from 'tap';
import { ConfigError, loadConfig } from '../../src/config.js';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

t.test('by default keys are not encrypted, a rotation signs after an hour and instances reload keys every minute', async (t) => {
  const config = loadConfig({});
  t.equal(config.keysEncryptionSecret, undefined);
  t.equal(config.keyActivationDelaySeconds, 3600);
  t.equal(config.keysRefreshSeconds, 60);
});

t.test('an activation delay of 0 is accepted, a refresh interval of 0 is not', async (t) => {
  t.equal(loadConfig({ KEY_ACTIVATION_DELAY_SECONDS: '0' }).keyActivationDelaySeconds, 0);
  t.same(problems({ KEYS_REFRESH_SECONDS: '0' }), ['KEYS_REFRESH_SECONDS must be a whole number from 1 to 86400 (got "0")']);
  t.same(problems({ KEY_ACTIVATION_DELAY_SECONDS: '-1' }), [
    'KEY_ACTIVATION_DELAY_SECONDS must be a whole number from 0 to 2592000 (got "-1")',
  ]);
});

t.test('a short KEYS_ENCRYPTION_SECRET is refused without being echoed', async (t) => {
  const secret = 'too-short-secret';
  const found = problems({ KEYS_ENCRYPTION_SECRET: secret });
  t.same(found, ['KEYS_ENCRYPTION_SECRET must be at least 32 characters (e.g. openssl rand -base64 32)']);
  t.notMatch(found.join('\n'), secret);
  const long = 'x'.repeat(32);
  t.equal(loadConfig({ KEYS_ENCRYPTION_SECRET: long }).keysEncryptionSecret, long);
});
