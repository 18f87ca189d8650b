// The hardening settings: documented defaults, and values that would undo a lock refused by name.
import t, { type Test } from 'tap';
import { ConfigError, loadConfig } from '../../src/config.js';

function problems(t: Test, env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    t.type(err, ConfigError);
    return (err as ConfigError).problems;
  }
  t.fail(`expected ${JSON.stringify(env)} to be refused`);
  return [];
}

t.test('an empty environment loads the documented throttle, argon2 queue and purge defaults', async (t) => {
  const config = loadConfig({});
  t.same(config.signInThrottle, {
    account: { freeAttempts: 5, lockBaseSeconds: 2, lockMaxSeconds: 900 },
    ip: { freeAttempts: 50, lockBaseSeconds: 2, lockMaxSeconds: 900 },
    windowSeconds: 86_400,
  });
  t.same(config.passwordWork, { maxConcurrent: 2, maxQueued: 32 });
  t.equal(config.purgeIntervalSeconds, 600);
  t.ok(Object.isFrozen(config.signInThrottle) && Object.isFrozen(config.signInThrottle.account) && Object.isFrozen(config.passwordWork));
});

t.test('SIGN_IN_IP_FREE_ATTEMPTS=0 turns the per-address throttle off, and PURGE_INTERVAL_SECONDS=0 the purge job', async (t) => {
  const config = loadConfig({ SIGN_IN_IP_FREE_ATTEMPTS: '0', PURGE_INTERVAL_SECONDS: '0' });
  t.equal(config.signInThrottle.ip, null);
  t.equal(config.purgeIntervalSeconds, 0);
});

t.test('a lock cap below the base, or a window shorter than the cap, is refused naming the variable', async (t) => {
  t.match(problems(t, { SIGN_IN_LOCK_BASE_SECONDS: '60', SIGN_IN_LOCK_MAX_SECONDS: '30' }), [
    /^SIGN_IN_LOCK_MAX_SECONDS must be at least SIGN_IN_LOCK_BASE_SECONDS/,
  ]);
  t.match(problems(t, { SIGN_IN_LOCK_MAX_SECONDS: '3600', SIGN_IN_THROTTLE_WINDOW_SECONDS: '600' }), [
    /^SIGN_IN_THROTTLE_WINDOW_SECONDS must be at least SIGN_IN_LOCK_MAX_SECONDS/,
  ]);
});

t.test('out-of-range hardening settings are refused naming the variable', async (t) => {
  t.match(problems(t, { SIGN_IN_ACCOUNT_FREE_ATTEMPTS: '0' }), [/^SIGN_IN_ACCOUNT_FREE_ATTEMPTS must be a whole number from 1/]);
  t.match(problems(t, { ARGON2_MAX_CONCURRENT: '0' }), [/^ARGON2_MAX_CONCURRENT must be a whole number from 1/]);
  t.match(problems(t, { ARGON2_MAX_QUEUED: '-1' }), [/^ARGON2_MAX_QUEUED must be a whole number from 0/]);
  t.match(problems(t, { PURGE_INTERVAL_SECONDS: 'hourly' }), [/^PURGE_INTERVAL_SECONDS must be a whole number from 0/]);
});
