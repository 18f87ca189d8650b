// DEVICE_CODE_TTL_SECONDS, DEVICE_CODE_INTERVAL_SECONDS, USER_CODE_IP_FREE_ATTEMPTS: defaults, bounds, and the
// user-code counter's locks taken from the sign-in lock settings.
import t from 'tap';
import { ConfigError, loadConfig } from '../../src/config.js';

t.test(
  'the device flow defaults: codes live 10 minutes, devices poll every 5 seconds, 10 free user-code entries per address',
  async (t) => {
    t.same(loadConfig({}).deviceFlow, {
      codeTtlSeconds: 600,
      intervalSeconds: 5,
      userCodeEntry: { freeAttempts: 10, lockBaseSeconds: 2, lockMaxSeconds: 900 },
      authorizationRequests: {
        perNetwork: { freeAttempts: 30, lockBaseSeconds: 60, lockMaxSeconds: 60 },
        perClient: { freeAttempts: 600, lockBaseSeconds: 60, lockMaxSeconds: 60 },
      },
    });
  },
);

t.test('device authorization requests: a number per minute, 0 turns a counter off', async (t) => {
  const config = loadConfig({ DEVICE_AUTHORIZATION_IP_PER_MINUTE: '0', DEVICE_AUTHORIZATION_CLIENT_PER_MINUTE: '7' });
  t.same(config.deviceFlow.authorizationRequests, {
    perNetwork: null,
    perClient: { freeAttempts: 7, lockBaseSeconds: 60, lockMaxSeconds: 60 },
  });
});

t.test('the user-code counter locks like sign-in attempts, and 0 turns it off', async (t) => {
  const config = loadConfig({ USER_CODE_IP_FREE_ATTEMPTS: '3', SIGN_IN_LOCK_BASE_SECONDS: '5', SIGN_IN_LOCK_MAX_SECONDS: '60' });
  t.same(config.deviceFlow.userCodeEntry, { freeAttempts: 3, lockBaseSeconds: 5, lockMaxSeconds: 60 });
  t.equal(loadConfig({ USER_CODE_IP_FREE_ATTEMPTS: '0' }).deviceFlow.userCodeEntry, null);
});

t.test('values out of bounds are refused with a message naming the variable', async (t) => {
  const cases: Array<[string, string, string]> = [
    ['DEVICE_CODE_TTL_SECONDS', '59', 'from 60 to 3600'],
    ['DEVICE_CODE_TTL_SECONDS', '3601', 'from 60 to 3600'],
    ['DEVICE_CODE_INTERVAL_SECONDS', '0', 'from 1 to 60'],
    ['DEVICE_CODE_INTERVAL_SECONDS', '61', 'from 1 to 60'],
    ['USER_CODE_IP_FREE_ATTEMPTS', '-1', 'from 0 to 1000000'],
    ['USER_CODE_IP_FREE_ATTEMPTS', 'many', 'from 0 to 1000000'],
  ];
  for (const [name, value, range] of cases) {
    t.throws(
      () => loadConfig({ [name]: value }),
      { constructor: ConfigError, message: new RegExp(`${name} must be a whole number ${range}`) },
      `${name}=${value}`,
    );
  }
});
