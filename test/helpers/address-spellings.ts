// Every way of writing a refused address in a URL that WHATWG URL parsing accepts (issue 38 finding 2), and a few
// public ones: one table for the unit test of the range table and for each path that stores a URL.

/** [URL, what it is, the host URL parsing makes of it]. */
export const REFUSED_URLS: readonly [string, string, string][] = [
  ['https://127.0.0.1/x', 'dotted decimal', '127.0.0.1'],
  ['https://2130706433/x', 'one decimal number', '127.0.0.1'],
  ['https://0x7f000001/x', 'one hexadecimal number', '127.0.0.1'],
  ['https://017700000001/x', 'one octal number', '127.0.0.1'],
  ['https://0177.0.0.1/x', 'octal parts', '127.0.0.1'],
  ['https://0x7f.0x0.0x0.0x1/x', 'hexadecimal parts', '127.0.0.1'],
  ['https://0x7F.1/x', 'hexadecimal, short form', '127.0.0.1'],
  ['https://127.1/x', 'short form', '127.0.0.1'],
  ['https://127.0.1/x', 'three parts', '127.0.0.1'],
  ['https://127.0x0.1/x', 'mixed bases', '127.0.0.1'],
  ['https://127.0.0.1./x', 'a trailing dot', '127.0.0.1'],
  ['https://%31%32%37.0.0.1/x', 'percent-encoded', '127.0.0.1'],
  ['https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/x', 'full-width digits', '127.0.0.1'],
  ['https://2852039166/x', 'the metadata service, one decimal number', '169.254.169.254'],
  ['https://0xa9.0xfe.0xa9.0xfe/x', 'the metadata service, hexadecimal parts', '169.254.169.254'],
  ['https://0251.0376.0251.0376/x', 'the metadata service, octal parts', '169.254.169.254'],
  ['https://169.254.43518/x', 'the metadata service, short form', '169.254.169.254'],
  ['https://0/x', 'zero', '0.0.0.0'],
  ['https://10.1/x', 'a private address, short form', '10.0.0.1'],
  ['https://4294967295/x', 'the broadcast address as a number', '255.255.255.255'],
  ['https://[::1]/x', 'IPv6 loopback', '[::1]'],
  ['https://[0:0:0:0:0:0:0:1]/x', 'IPv6 loopback, uncompressed', '[::1]'],
  ['https://[::]/x', 'the unspecified address', '[::]'],
  ['https://[::ffff:127.0.0.1]/x', 'IPv4-mapped, dotted', '[::ffff:7f00:1]'],
  ['https://[::FFFF:7F00:1]/x', 'IPv4-mapped, hexadecimal, upper case', '[::ffff:7f00:1]'],
  ['https://[0:0:0:0:0:ffff:169.254.169.254]/x', 'IPv4-mapped metadata service, uncompressed', '[::ffff:a9fe:a9fe]'],
  ['https://[::ffff:0:a9fe:a9fe]/x', 'IPv4-translated (RFC 2765) metadata service', '[::ffff:0:a9fe:a9fe]'],
  ['https://[::ffff:0:169.254.169.254]/x', 'IPv4-translated, dotted', '[::ffff:0:a9fe:a9fe]'],
  ['https://[::127.0.0.1]/x', 'IPv4-compatible (deprecated)', '[::7f00:1]'],
  ['https://[::a9fe:a9fe]/x', 'IPv4-compatible metadata service', '[::a9fe:a9fe]'],
  ['https://[64:ff9b::a9fe:a9fe]/x', 'NAT64 well-known prefix, metadata service', '[64:ff9b::a9fe:a9fe]'],
  ['https://[64:ff9b::10.0.0.1]/x', 'NAT64 well-known prefix, private address', '[64:ff9b::a00:1]'],
  ['https://[64:ff9b:1::a9fe:a9fe]/x', 'local-use NAT64 (RFC 8215)', '[64:ff9b:1::a9fe:a9fe]'],
  ['https://[64:ff9b:1:a9fe:a9:fe00::]/x', 'local-use NAT64, a /48 prefix (RFC 6052 2.2)', '[64:ff9b:1:a9fe:a9:fe00::]'],
  ['https://[64:ff9b:1::808:808]/x', 'local-use NAT64, even with a public address', '[64:ff9b:1::808:808]'],
  ['https://[2002:a9fe:a9fe::1]/x', '6to4 of the metadata service', '[2002:a9fe:a9fe::1]'],
  ['https://[2002:7f00:1::]/x', '6to4 of loopback', '[2002:7f00:1::]'],
  ['https://[2002:c0a8:101::1]/x', '6to4 of a private address', '[2002:c0a8:101::1]'],
  ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x', 'Teredo', '[2001:0:4136:e378:8000:63bf:3fff:fdd2]'],
  ['https://[FE80::1]/x', 'link-local', '[fe80::1]'],
  ['https://[fd00::1]/x', 'unique-local', '[fd00::1]'],
  ['https://[fec0::1]/x', 'site-local (deprecated)', '[fec0::1]'],
  ['https://[ff02::1]/x', 'multicast', '[ff02::1]'],
  ['https://[100::1]/x', 'discard-only', '[100::1]'],
  ['https://[2001:db8::1]/x', 'documentation', '[2001:db8::1]'],
  ['https://[3fff::1]/x', 'documentation (RFC 9637)', '[3fff::1]'],
  ['https://[5f00::1]/x', 'SRv6 SIDs', '[5f00::1]'],
  ['https://[4000::1]/x', 'outside global unicast', '[4000::1]'],
  ['https://localhost/x', 'localhost', 'localhost'],
  ['https://LOCALHOST./x', 'localhost, upper case and a trailing dot', 'localhost.'],
  ['https://api.localhost/x', 'a name under localhost', 'api.localhost'],
];

/** An IPv6 zone id is no valid host in a URL (WHATWG URL Standard, host parsing): such a URL is never stored. */
export const ZONE_IDS = ['https://[fe80::1%25eth0]/x', 'https://[fe80::1%eth0]/x', 'https://[::1%251]/x'];

export const PUBLIC_URLS: readonly [string, string][] = [
  ['https://8.8.8.8/x', 'a public address'],
  ['https://134744072/x', 'a public address as one number'],
  ['https://[2001:4860:4860::8888]/x', 'a public IPv6 address'],
  ['https://[::ffff:8.8.8.8]/x', 'IPv4-mapped public address'],
  ['https://[64:ff9b::808:808]/x', 'NAT64 of a public address'],
  ['https://[2002:808:808::1]/x', '6to4 of a public address'],
  ['https://rp.example/x', 'a name (left to the resolver)'],
];

/** The refused spellings of an address literal (localhost names aside), with the zone ids: one URL each. */
export const REFUSED_LITERALS: readonly string[] = [
  ...REFUSED_URLS.filter(([, , host]) => !host.includes('localhost')).map(([url]) => url),
  ...ZONE_IDS,
];
