// METRICS_PORT, METRICS_HOST, SHUTDOWN_DRAIN_SECONDS, SHUTDOWN_TIMEOUT_SECONDS, TRUST_PROXY and HSTS_MAX_AGE_SECONDS:
// defaults and refusals.
import t from 'tap';
import { ConfigError, loadConfig } from '../../src/config.js';

const problems = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
};

t.test(
  'by default /metrics is on the main port, shutdown does not drain, waits 10 s, no proxy is trusted, HSTS lasts a year',
  async (t) => {
    t.same(loadConfig({}).operations, {
      metricsPort: undefined,
      metricsHost: 'localhost',
      shutdownDrainSeconds: 0,
      shutdownTimeoutSeconds: 10,
      trustProxy: false,
      hstsMaxAgeSeconds: 31_536_000,
    });
    t.ok(Object.isFrozen(loadConfig({}).operations));
  },
);

t.test('METRICS_PORT moves /metrics to its own port, on HOST unless METRICS_HOST says otherwise', async (t) => {
  t.match(loadConfig({ METRICS_PORT: '9464', HOST: '0.0.0.0' }).operations, { metricsPort: 9464, metricsHost: '0.0.0.0' });
  t.match(loadConfig({ METRICS_PORT: '9464', HOST: '0.0.0.0', METRICS_HOST: '127.0.0.1' }).operations, {
    metricsPort: 9464,
    metricsHost: '127.0.0.1',
  });
});

t.test('METRICS_PORT must be a port other than PORT', async (t) => {
  t.match(problems({ METRICS_PORT: 'abc' }), [/^METRICS_PORT must be a whole number from 0 to 65535/]);
  t.match(problems({ METRICS_PORT: '-1' }), [/^METRICS_PORT must be a whole number from 0 to 65535/]);
  t.same(problems({ METRICS_PORT: '0', PORT: '0' }), [], 'port 0 on both: two ports the kernel picks');
  t.match(problems({ METRICS_PORT: '3000' }), ['METRICS_PORT must differ from PORT (leave it empty to serve /metrics on PORT)']);
});

t.test('SHUTDOWN_DRAIN_SECONDS and SHUTDOWN_TIMEOUT_SECONDS are read and bounded', async (t) => {
  t.match(loadConfig({ SHUTDOWN_DRAIN_SECONDS: '5', SHUTDOWN_TIMEOUT_SECONDS: '25' }).operations, {
    shutdownDrainSeconds: 5,
    shutdownTimeoutSeconds: 25,
  });
  t.match(problems({ SHUTDOWN_TIMEOUT_SECONDS: '0' }), [/^SHUTDOWN_TIMEOUT_SECONDS must be a whole number from 1 to 600/]);
  t.match(problems({ SHUTDOWN_DRAIN_SECONDS: '301' }), [/^SHUTDOWN_DRAIN_SECONDS must be a whole number from 0 to 300/]);
});

t.test('TRUST_PROXY off: empty, false or 0', async (t) => {
  for (const value of ['', 'false', 'FALSE', '0'])
    t.equal(loadConfig({ TRUST_PROXY: value }).operations.trustProxy, false, JSON.stringify(value));
});

t.test('TRUST_PROXY as a hop count', async (t) => {
  t.equal(loadConfig({ TRUST_PROXY: '1' }).operations.trustProxy, 1);
  t.equal(loadConfig({ TRUST_PROXY: '2' }).operations.trustProxy, 2);
  t.match(problems({ TRUST_PROXY: '101' }), [/^TRUST_PROXY must be a hop count/]);
});

t.test('TRUST_PROXY as a list of addresses, CIDRs and range names', async (t) => {
  t.same(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.7,2001:db8::/32, ::1, loopback' }).operations.trustProxy, [
    '10.0.0.0/8',
    '192.0.2.7',
    '2001:db8::/32',
    '::1',
    'loopback',
  ]);
});

t.test('TRUST_PROXY=true and malformed entries are refused, naming the variable', async (t) => {
  for (const value of ['true', '10.0.0.0/33', '2001:db8::/129', 'proxy.example', '10.0.0.1/8/2', '10.0.0.0/', ',']) {
    t.match(
      problems({ TRUST_PROXY: value }),
      [/^TRUST_PROXY must be a hop count \(1 to 100\) or a comma list of addresses and CIDRs/],
      JSON.stringify(value),
    );
  }
});

t.test('HSTS_MAX_AGE_SECONDS is read and bounded: 0 (none) to two years', async (t) => {
  t.equal(loadConfig({ HSTS_MAX_AGE_SECONDS: '0' }).operations.hstsMaxAgeSeconds, 0);
  t.equal(loadConfig({ HSTS_MAX_AGE_SECONDS: '63072000' }).operations.hstsMaxAgeSeconds, 63_072_000);
  t.match(problems({ HSTS_MAX_AGE_SECONDS: '63072001' }), [/^HSTS_MAX_AGE_SECONDS must be a whole number from 0 to 63072000/]);
  t.match(problems({ HSTS_MAX_AGE_SECONDS: '-1' }), [/^HSTS_MAX_AGE_SECONDS must be a whole number from 0 to 63072000/]);
});
