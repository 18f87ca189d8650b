// OUTBOUND_ALLOW_NETWORKS: the networks a self-registered client's back-channel logout URI may point into.
import t from 'tap';
import { ConfigError, loadConfig } from '../../src/config.js';

t.test('OUTBOUND_ALLOW_NETWORKS is empty by default', async (t) => {
  t.same(loadConfig({}).outbound.allowNetworks, []);
});

t.test('OUTBOUND_ALLOW_NETWORKS is read as CIDR blocks in canonical form; a bare address is a /32 or /128', async (t) => {
  const config = loadConfig({ OUTBOUND_ALLOW_NETWORKS: ' 10.20.0.0/16, FD00:0::/8 ,192.0.2.7' });
  t.same(config.outbound.allowNetworks, ['10.20.0.0/16', 'fd00::/8', '192.0.2.7/32']);
});

t.test('a value that is no CIDR block is refused, with the variable named', async (t) => {
  for (const value of ['10.0.0.0/33', 'intranet', '10.1.2.3/8', '::ffff:10.0.0.0/104']) {
    try {
      loadConfig({ OUTBOUND_ALLOW_NETWORKS: value });
      t.fail(`${value} was accepted`);
    } catch (err) {
      t.type(err, ConfigError);
      t.match((err as ConfigError).problems.join('\n'), /^OUTBOUND_ALLOW_NETWORKS: /m, value);
    }
  }
});
