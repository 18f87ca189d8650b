// Admin risk rules as given on the command line or in a seed file: kinds, effects, and values checked and
// written in the one form the sign-in statement compares with (CIDR blocks that PostgreSQL's cidr accepts).
import t from 'tap';
import { canonicalCidr } from '../../../src/net/cidr.js';
import { parseRiskRule } from '../../../src/domain/risk/rules.js';

t.test('a CIDR block is written in canonical form; a bare address is a one-address block', async (t) => {
  t.same(canonicalCidr('203.0.113.0/24'), { cidr: '203.0.113.0/24' });
  t.same(canonicalCidr(' 203.0.113.9 '), { cidr: '203.0.113.9/32' });
  t.same(canonicalCidr('0.0.0.0/0'), { cidr: '0.0.0.0/0' });
  t.same(canonicalCidr('2001:0DB8:0000::/32'), { cidr: '2001:db8::/32' });
  t.same(canonicalCidr('2001:db8:0:0:1:0:0:1'), { cidr: '2001:db8::1:0:0:1/128' }, 'RFC 5952 4.2.3: the first of two equal zero runs');
  t.same(canonicalCidr('2001:db8:1:2:3:4:5:0/127'), { cidr: '2001:db8:1:2:3:4:5:0/127' }, 'one zero group is not compressed');
  t.same(canonicalCidr('::/0'), { cidr: '::/0' });
});

t.test('a CIDR block with bits set after its prefix is refused, naming the block that was probably meant', async (t) => {
  t.same(canonicalCidr('203.0.113.7/24'), { problem: '"203.0.113.7/24" has bits set after the /24 prefix: did you mean 203.0.113.0/24?' });
  t.match(canonicalCidr('2001:db8::1/32'), { problem: /did you mean 2001:db8::\/32\?/ });
});

t.test('anything else is not a CIDR block', async (t) => {
  for (const value of [
    '203.0.113.0/33',
    '203.0.113/24',
    '203.0.113.0/',
    '203.0.113.0/24/1',
    'example.com',
    '2001:db8::/129',
    'fe80::1%eth0',
    '::ffff:192.0.2.1',
    '10.0.0.0/8a',
    '',
  ]) {
    t.ok('problem' in canonicalCidr(value), value);
  }
});

t.test('a rule is normalised: network blocks canonical, usernames and device ids lower case, notes trimmed', async (t) => {
  t.same(parseRiskRule({ kind: 'network', value: '2001:DB8::/48', effect: 'block', note: '  scanner ' }), {
    rule: { kind: 'network', value: '2001:db8::/48', effect: 'block', note: 'scanner' },
  });
  t.same(parseRiskRule({ kind: 'username', value: ' Alice ', effect: 'allow' }), {
    rule: { kind: 'username', value: 'alice', effect: 'allow', note: null },
  });
  t.same(parseRiskRule({ kind: 'device', value: '0F6C6E0A-8C4B-4D43-9E0C-1B2A3C4D5E6F', effect: 'block' }), {
    rule: { kind: 'device', value: '0f6c6e0a-8c4b-4d43-9e0c-1b2a3c4d5e6f', effect: 'block', note: null },
  });
});

t.test('a rule with a bad kind, effect, value or note lists every problem', async (t) => {
  t.same(parseRiskRule({ kind: 'country', value: 'XX', effect: 'maybe', note: 7 }), {
    problems: [
      'kind must be one of device, network, username',
      'effect must be one of allow, block',
      'note must be a string of at most 500 characters',
    ],
  });
  t.same(parseRiskRule({ kind: 'device', value: 'my-laptop', effect: 'block' }), {
    problems: ['a device rule\'s value is a device id (a UUID), not "my-laptop"'],
  });
  t.same(parseRiskRule({ kind: 'network', value: '10.1.2.3/8', effect: 'block' }), {
    problems: ['"10.1.2.3/8" has bits set after the /8 prefix: did you mean 10.0.0.0/8?'],
  });
  t.same(parseRiskRule({ kind: 'username', value: '   ', effect: 'block' }), { problems: ['value must be a non-empty string'] });
});
