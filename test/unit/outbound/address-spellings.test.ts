// Issue 38 finding 2: every way of writing a refused address in a URL or in a DNS answer meets the one range table
// (src/outbound/address-ranges.ts): in the check before a URL is stored (src/outbound/stored-url.ts) and in the
// guarded fetch when it connects. WHATWG URL parsing (Node's URL) turns decimal, octal, hexadecimal and short IPv4
// hosts into dotted quads, and refuses an IPv6 zone id in a host; the table judges what comes out.
import t from 'tap';
import { AllowedNetworks, carriedIpv4, refusedRange } from '../../../src/outbound/address-ranges.js';
import { guardedFetch, OutboundError, type OutboundPolicy, type Resolver } from '../../../src/outbound/guarded-fetch.js';
import { storedUrlProblem, WITHOUT_CONFIGURATION } from '../../../src/outbound/stored-url.js';
import { PUBLIC_URLS, REFUSED_URLS, ZONE_IDS } from '../../helpers/address-spellings.js';

const STRICT: OutboundPolicy = {
  httpsOnly: true,
  publicAddressesOnly: true,
  allowed: new AllowedNetworks([]),
  ownHost: 'sso.example.test',
};

t.test('URL parsing writes each spelling as the host the table is asked about', async (t) => {
  for (const [url, what, host] of REFUSED_URLS) t.equal(new URL(url).hostname, host, what);
  for (const url of ZONE_IDS) t.notOk(URL.canParse(url), url);
});

t.test('every spelling of a refused address is refused before it is stored', async (t) => {
  for (const [url, what] of REFUSED_URLS) {
    t.match(storedUrlProblem(url, STRICT), /must not point to this machine or a private network/, `${what}: ${url}`);
    t.match(storedUrlProblem(url, WITHOUT_CONFIGURATION.policy), /must not point to this machine or a private network/, url);
  }
  for (const url of ZONE_IDS) t.equal(storedUrlProblem(url, STRICT), 'must be an absolute URL', url);
  for (const [url, what] of PUBLIC_URLS) t.equal(storedUrlProblem(url, STRICT), undefined, `${what}: ${url}`);
});

/** A resolver that must not be asked: an address literal is not resolved. */
const noLookup: Resolver = async (hostname) => {
  throw new Error(`${hostname} was looked up`);
};

async function refusedAtConnect(url: string, resolve: Resolver = noLookup): Promise<OutboundError> {
  const request = { url, method: 'GET' as const, timeoutMs: 500, maxResponseBytes: 1024 };
  const err = await guardedFetch(request, STRICT, { resolve, extraCa: [] }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof OutboundError)) throw new Error(`${url} was not refused`);
  return err;
}

t.test('the guarded fetch refuses every spelling when it connects, before any packet is sent', async (t) => {
  for (const [url, what] of REFUSED_URLS.filter(([, , host]) => !host.includes('localhost'))) {
    const err = await refusedAtConnect(url);
    t.equal(err.code, 'refused-address', `${what}: ${url} (${err.message})`);
  }
  for (const url of ZONE_IDS) t.equal((await refusedAtConnect(url)).code, 'bad-url', url);
});

t.test('a name that resolves to an IPv6 form carrying a refused IPv4 address is refused when it connects', async (t) => {
  for (const address of [
    '::ffff:0:a9fe:a9fe',
    '::ffff:169.254.169.254',
    '::ffff:7f00:1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::a9fe:a9fe',
    '2002:a9fe:a9fe::',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '::a9fe:a9fe',
    'fe80::1%eth0',
  ]) {
    const resolve: Resolver = async () => [{ address, family: 6 }];
    const err = await refusedAtConnect('https://rp.example.test/x', resolve);
    t.equal(err.code, 'refused-address', address);
    t.match(err.message, `rp.example.test is ${address}`, address);
  }
});

t.test('IPv4-mapped, NAT64 and 6to4 addresses are judged as the IPv4 address they carry', async (t) => {
  const cases: [string, string, string | undefined][] = [
    ['::ffff:a9fe:a9fe', '169.254.169.254', 'link-local'],
    ['64:ff9b::a9fe:a9fe', '169.254.169.254', 'link-local'],
    ['64:ff9b::c0a8:101', '192.168.1.1', 'private'],
    ['2002:a9fe:a9fe:1:2:3:4:5', '169.254.169.254', 'link-local'],
    ['2002:a00:1::', '10.0.0.1', 'private'],
    ['2002:c000:201::', '192.0.2.1', 'documentation'],
    ['::ffff:808:808', '8.8.8.8', undefined],
    ['64:ff9b::808:808', '8.8.8.8', undefined],
    ['2002:808:808::', '8.8.8.8', undefined],
  ];
  for (const [address, carried, kind] of cases) {
    t.equal(carriedIpv4(address), carried, address);
    t.equal(refusedRange(address), kind, address);
  }
  t.equal(carriedIpv4('::ffff:0:a9fe:a9fe'), undefined, 'IPv4-translated is refused outright, not judged');
  t.equal(refusedRange('::ffff:0:808:808'), 'special-purpose', 'even with a public address');
  t.equal(refusedRange('::808:808'), 'reserved', 'IPv4-compatible, even with a public address');
  t.equal(refusedRange('2001:0:4136:e378:8000:63bf:f7f7:f7f7'), 'special-purpose', 'Teredo of 8.8.8.8, refused outright');
});

t.test('an allowed network lets a NAT64 or 6to4 address in only by its own IPv6 block', async (t) => {
  const v4 = new AllowedNetworks(['10.0.0.0/8']);
  t.ok(v4.has('::ffff:10.1.2.3'), 'IPv4-mapped is the same destination');
  t.notOk(v4.has('64:ff9b::a01:203'), 'NAT64 goes through a translator');
  t.notOk(v4.has('2002:a01:203::'), '6to4 goes through a relay');
  t.notOk(v4.has('::ffff:0:a01:203'), 'IPv4-translated');
  t.ok(new AllowedNetworks(['64:ff9b::/96']).has('64:ff9b::a01:203'));
});
