// The address classifier of the outbound guard: the special-use blocks of RFC 6890 (and the RFCs each names) are
// refused, IPv4 carried in IPv6 is judged as the IPv4 address, public addresses pass, an allowed network passes.
import t from 'tap';
import { AllowedNetworks, refusedHostLiteral, refusedRange } from '../../../src/outbound/address-ranges.js';

t.test('each refused IPv4 block is recognised, at both of its ends', async (t) => {
  const cases: [string, string][] = [
    ['0.0.0.0', 'unspecified'],
    ['0.255.255.255', 'unspecified'],
    ['10.0.0.0', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.0', 'shared (CGNAT)'],
    ['100.127.255.255', 'shared (CGNAT)'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['172.16.0.0', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
  ];
  for (const [address, kind] of cases) t.equal(refusedRange(address), kind, address);
});

t.test('the addresses just outside each IPv4 block are public', async (t) => {
  for (const address of [
    '1.0.0.0',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '172.15.255.255',
    '172.32.0.0',
    '192.167.255.255',
    '192.169.0.0',
    '223.255.255.255',
    '8.8.8.8',
  ]) {
    t.equal(refusedRange(address), undefined, address);
  }
});

t.test('each refused IPv6 block is recognised (RFC 4291, RFC 4193)', async (t) => {
  const cases: [string, string][] = [
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fc00::1', 'unique-local'],
    ['fdff:ffff::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['FEBF::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::7f00:1', 'reserved'],
    ['fec0::1', 'reserved'],
  ];
  for (const [address, kind] of cases) t.equal(refusedRange(address), kind, address);
  for (const address of ['2001:4860:4860::8888', '2606:4700::1111', '2a00:1450::1', '3ffe::1']) {
    t.equal(refusedRange(address), undefined, address);
  }
});

t.test('RFC 4291 2.5.5.2 IPv4-mapped and RFC 6052 NAT64 addresses are judged as the IPv4 address they carry', async (t) => {
  t.equal(refusedRange('::ffff:127.0.0.1'), 'loopback');
  t.equal(refusedRange('::ffff:7f00:1'), 'loopback', 'the hexadecimal spelling too');
  t.equal(refusedRange('::FFFF:10.1.2.3'), 'private');
  t.equal(refusedRange('64:ff9b::169.254.169.254'), 'link-local');
  t.equal(refusedRange('64:ff9b::a9fe:a9fe'), 'link-local');
  t.equal(refusedRange('::ffff:8.8.8.8'), undefined);
  t.equal(refusedRange('64:ff9b::808:808'), undefined);
});

t.test('an allowed network lets its addresses through, the mapped forms included, and nothing else', async (t) => {
  const allowed = new AllowedNetworks(['10.0.0.0/8', 'fd00::/8']);
  t.ok(allowed.has('10.1.2.3'));
  t.ok(allowed.has('::ffff:10.1.2.3'));
  t.ok(allowed.has('fd12::1'));
  t.notOk(allowed.has('11.0.0.1'));
  t.notOk(allowed.has('127.0.0.1'));
  t.notOk(allowed.has('fc00::1'));
  t.notOk(new AllowedNetworks([]).has('10.1.2.3'));
});

t.test('a host refused from its text: address literals in refused blocks and names under localhost (RFC 6761 6.3)', async (t) => {
  const none = new AllowedNetworks([]);
  for (const host of [
    '127.0.0.1',
    '[::1]',
    '10.1.2.3',
    '169.254.169.254',
    '[fe80::1]',
    '[::ffff:127.0.0.1]',
    '0.0.0.0',
    'localhost',
    'LOCALHOST',
    'api.localhost',
    'localhost.',
  ]) {
    t.type(refusedHostLiteral(host, none), 'string', host);
  }
  t.equal(refusedHostLiteral('rp.example', none), undefined, 'a name is left to the resolver');
  t.equal(refusedHostLiteral('93.184.216.34', none), undefined);
  t.equal(refusedHostLiteral('10.1.2.3', new AllowedNetworks(['10.0.0.0/8'])), undefined);
  t.type(refusedHostLiteral('localhost', new AllowedNetworks(['127.0.0.0/8'])), 'string', 'a name is not an address');
});

t.test('RFC 6890: each block of the IANA special-purpose registries is refused at both of its ends', async (t) => {
  const blocks: [first: string, last: string, kind: string][] = [
    ['0.0.0.0', '0.255.255.255', 'unspecified'],
    ['10.0.0.0', '10.255.255.255', 'private'],
    ['100.64.0.0', '100.127.255.255', 'shared (CGNAT)'],
    ['127.0.0.0', '127.255.255.255', 'loopback'],
    ['169.254.0.0', '169.254.255.255', 'link-local'],
    ['172.16.0.0', '172.31.255.255', 'private'],
    ['192.0.0.0', '192.0.0.255', 'special-purpose'],
    ['192.0.2.0', '192.0.2.255', 'documentation'],
    ['192.88.99.0', '192.88.99.255', 'special-purpose'],
    ['192.168.0.0', '192.168.255.255', 'private'],
    ['198.18.0.0', '198.19.255.255', 'benchmarking'],
    ['198.51.100.0', '198.51.100.255', 'documentation'],
    ['203.0.113.0', '203.0.113.255', 'documentation'],
    ['224.0.0.0', '239.255.255.255', 'multicast'],
    ['240.0.0.0', '255.255.255.254', 'reserved'],
    ['255.255.255.255', '255.255.255.255', 'broadcast'],
    ['::', '::', 'unspecified'],
    ['::1', '::1', 'loopback'],
    ['::0.0.0.2', '::255.255.255.255', 'reserved'],
    ['::ffff:0:0:0', '::ffff:0:ffff:ffff', 'special-purpose'],
    ['64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'special-purpose'],
    ['100::', '100::ffff:ffff:ffff:ffff', 'special-purpose'],
    ['100:0:0:1::', '100::1:ffff:ffff:ffff:ffff', 'special-purpose'],
    ['2001::', '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', 'special-purpose'],
    ['2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
    ['3fff::', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
    ['5f00::', '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'special-purpose'],
    ['fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique-local'],
    ['fe80::', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link-local'],
    ['fec0::', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
    ['ff00::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'multicast'],
  ];
  for (const [first, last, kind] of blocks) {
    t.equal(refusedRange(first), kind, first);
    t.equal(refusedRange(last), kind, last);
  }
});

t.test('the globally reachable entries of the registries, and the addresses next to each block, are public', async (t) => {
  for (const address of [
    '192.0.1.255',
    '192.0.3.0',
    '192.31.196.1', // AS112-v4
    '192.52.193.1', // AMT
    '192.88.98.255',
    '192.88.100.0',
    '192.175.48.1', // AS112 direct delegation
    '198.17.255.255',
    '198.20.0.0',
    '198.51.99.255',
    '203.0.112.255',
    '203.0.114.0',
    '2000::1',
    '2001:200::1',
    '2001:db7:ffff::1',
    '2001:db9::1',
    '2003::1',
    '3ffe:ffff::1',
    '3fff:1000::1',
    '2620:4f:8000::1', // AS112 direct delegation
  ]) {
    t.equal(refusedRange(address), undefined, address);
  }
});
