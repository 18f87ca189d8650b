// Device identity (issue 5, "Device identity"): keyed, pseudonymous fingerprints and network keys of normalised
// signals, the /24 and /48 networks, the device key the counters group by, and the client-hint check.
import { createHash } from 'node:crypto';
import t from 'tap';
import { attemptKeys } from '../../../src/domain/risk/attempt-keys.js';
import { coarseFingerprint, deviceIdentity } from '../../../src/domain/risk/device-identity.js';
import type { DeviceSignals } from '../../../src/domain/risk/signals.js';
import { CHROME_WINDOWS, FIREFOX_LINUX, HEADLESS_CHROME, signals } from '../../helpers/device-signals.js';

const SECRET = Buffer.from('a-device-secret-of-at-least-32-characters');
const OTHER_SECRET = Buffer.from('another-device-secret-of-32-characters-!');
const CHROME_ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36';
const CHROME_HINTS = { brands: '"Chromium";v="130", "Google Chrome";v="130", "Not?A_Brand";v="99"', mobile: '?0', platform: '"Windows"' };

const id = (overrides: Partial<DeviceSignals> = {}, secret = SECRET) => deviceIdentity(signals(overrides), secret);

t.test(
  'the network key covers the client\'s IPv4 /24: two hosts of one /24 share it, the next /24 does not (issue 5: "/24 for IPv4")',
  async (t) => {
    t.equal(id({ ip: '192.0.2.1' }).networkKey, id({ ip: '192.0.2.254' }).networkKey);
    t.not(id({ ip: '192.0.2.1' }).networkKey, id({ ip: '192.0.3.1' }).networkKey);
    t.not(id({ ip: '192.0.2.1' }).networkKey, id({ ip: '193.0.2.1' }).networkKey);
  },
);

t.test('the network key covers the client\'s IPv6 /48, however the address is written (issue 5: "/48 for IPv6", RFC 5952)', async (t) => {
  t.equal(id({ ip: '2001:db8:1::1' }).networkKey, id({ ip: '2001:db8:1:ffff:ffff:ffff:ffff:ffff' }).networkKey, 'one /48');
  t.equal(id({ ip: '2001:DB8:0001:0::1' }).networkKey, id({ ip: '2001:db8:1::2' }).networkKey, 'case and leading zeros do not matter');
  t.equal(id({ ip: '2001:db8::1' }).networkKey, id({ ip: '2001:db8:0:1::' }).networkKey, ':: expands to the right groups');
  t.not(id({ ip: '2001:db8:1::1' }).networkKey, id({ ip: '2001:db8:2::1' }).networkKey, 'the next /48');
  t.equal(id({ ip: 'fe80::1%eth0' }).networkKey, id({ ip: 'fe80::2' }).networkKey, 'a zone id is no part of the network');
});

t.test('an IPv4-mapped IPv6 address has the network key of its IPv4 /24 (RFC 4291 2.5.5.2)', async (t) => {
  t.equal(id({ ip: '::ffff:192.0.2.77' }).networkKey, id({ ip: '192.0.2.1' }).networkKey);
  t.equal(id({ ip: '::FFFF:192.0.2.77' }).networkKey, id({ ip: '192.0.2.1' }).networkKey);
  t.not(id({ ip: '::ffff:192.0.3.77' }).networkKey, id({ ip: '192.0.2.1' }).networkKey);
});

t.test(
  'fingerprint and network key are HMACs under the device secret: another secret gives other keys, and neither shows the signals',
  async (t) => {
    const a = id({ ip: '192.0.2.1' });
    const b = id({ ip: '192.0.2.1' }, OTHER_SECRET);
    t.not(a.fingerprint, b.fingerprint);
    t.not(a.networkKey, b.networkKey);
    t.not(a.deviceKey, b.deviceKey);
    // Without the secret, a digest of the prefix would be found by trying the 2^24 IPv4 /24s.
    t.not(a.networkKey, createHash('sha256').update('192.0.2.0/24').digest('base64url').slice(0, 27));
    for (const value of [a.fingerprint, a.networkKey, a.deviceKey]) {
      t.match(value, /^[A-Za-z0-9_.:-]+$/, 'opaque characters only');
      t.notMatch(value, /192|Firefox|Linux|en-gb/i, 'no raw signal in it');
    }
  },
);

t.test(
  "the fingerprint is of normalised signals: a minor browser update, the language's case and its q-list do not change it",
  async (t) => {
    const base = id({ userAgent: FIREFOX_LINUX, acceptLanguage: 'en-GB,en;q=0.9' }).fingerprint;
    t.equal(
      id({
        userAgent: FIREFOX_LINUX.replace('rv:128.0', 'rv:128.3').replace('Firefox/128.0', 'Firefox/128.3'),
        acceptLanguage: 'en-GB,en;q=0.9',
      }).fingerprint,
      base,
      'minor version',
    );
    t.equal(
      id({ userAgent: FIREFOX_LINUX, acceptLanguage: 'EN-gb ; q=1, fr;q=0.5' }).fingerprint,
      base,
      'only the primary language, lower-cased',
    );
    t.equal(
      id({ userAgent: FIREFOX_LINUX, acceptLanguage: 'en-GB,en;q=0.9', ip: '198.51.100.9' }).fingerprint,
      base,
      'the address is no part of it',
    );
  },
);

t.test(
  'a major browser update changes only the fine half of the fingerprint; another browser family changes the coarse half',
  async (t) => {
    const base = id({ userAgent: FIREFOX_LINUX }).fingerprint;
    const updated = id({ userAgent: FIREFOX_LINUX.replace(/128\.0/g, '129.0') }).fingerprint;
    t.not(updated, base);
    t.equal(coarseFingerprint(updated), coarseFingerprint(base));
    t.not(coarseFingerprint(id({ userAgent: CHROME_WINDOWS }).fingerprint), coarseFingerprint(base));
    t.not(id({ acceptLanguage: 'de-DE' }).fingerprint, base, 'another primary language is another fingerprint');
  },
);

t.test("with a device cookie the device key is the cookie's digest; without one it is keyed by fingerprint and network", async (t) => {
  const cookie = 'AAAAAAAAAAAAAAAAAAAAAA';
  const withCookie = id({ deviceCookie: cookie });
  t.equal(withCookie.cookieHash, createHash('sha256').update(cookie).digest('base64url'));
  t.equal(withCookie.deviceKey, `c:${withCookie.cookieHash}`);
  t.equal(
    id({ deviceCookie: cookie, ip: '203.0.113.5', userAgent: CHROME_WINDOWS }).deviceKey,
    withCookie.deviceKey,
    'the cookie decides, wherever it is presented',
  );
  const without = id();
  t.equal(without.cookieHash, null);
  t.match(without.deviceKey, /^f:/);
  t.not(id({ ip: '203.0.113.5' }).deviceKey, without.deviceKey, 'another network, another cookieless device');
  t.not(id({ userAgent: CHROME_WINDOWS }).deviceKey, without.deviceKey, 'another browser, another cookieless device');
});

t.test('missing client signals (no JavaScript) change neither the identity nor the automation flag', async (t) => {
  const noScript = id({ client: {} });
  const withScript = id({
    client: { webdriver: false, timeZone: 'Europe/London', hardwareConcurrency: 8, screen: '1920x1080', languages: 'en-GB,en' },
  });
  t.same(noScript, withScript);
  t.equal(noScript.automation, false);
});

t.test('AUTOMATION fires when the page script reports navigator.webdriver', async (t) => {
  t.equal(id({ client: { webdriver: true } }).automation, true);
});

t.test('AUTOMATION fires for a headless user agent even without the page script', async (t) => {
  t.equal(id({ userAgent: HEADLESS_CHROME, client: {} }).automation, true);
});

t.test('AUTOMATION does not fire for an ordinary browser whose script says webdriver is off', async (t) => {
  t.equal(id({ userAgent: CHROME_WINDOWS, hints: CHROME_HINTS, client: { webdriver: false } }).automation, false);
});

t.test('UA_HINTS_MISMATCH fires for client hints sent with a Firefox user agent (only Chromium sends them)', async (t) => {
  t.equal(id({ userAgent: FIREFOX_LINUX, hints: { brands: CHROME_HINTS.brands, mobile: '?0', platform: '"Linux"' } }).hintsMismatch, true);
});

t.test('UA_HINTS_MISMATCH fires for a Windows user agent whose hints say Linux, or mobile', async (t) => {
  t.equal(id({ userAgent: CHROME_WINDOWS, hints: { ...CHROME_HINTS, platform: '"Linux"' } }).hintsMismatch, true);
  t.equal(id({ userAgent: CHROME_WINDOWS, hints: { ...CHROME_HINTS, mobile: '?1' } }).hintsMismatch, true);
});

t.test('UA_HINTS_MISMATCH does not fire when the hints agree with the user agent, nor when there are none', async (t) => {
  t.equal(id({ userAgent: CHROME_WINDOWS, hints: CHROME_HINTS }).hintsMismatch, false, 'Chrome on Windows saying Windows');
  t.equal(
    id({ userAgent: CHROME_ANDROID, hints: { ...CHROME_HINTS, mobile: '?1', platform: '"Android"' } }).hintsMismatch,
    false,
    'Chrome on Android saying mobile Android',
  );
  t.equal(id({ userAgent: FIREFOX_LINUX, hints: {} }).hintsMismatch, false, 'Firefox without hints');
  t.equal(id({ userAgent: CHROME_WINDOWS, hints: {} }).hintsMismatch, false, 'Chrome without hints (plain http, or hints turned off)');
});

t.test(
  'the attempt log keys the login as a keyed digest of the login as typed, trimmed and lower-cased: never the login itself',
  async (t) => {
    const device = id();
    const a = attemptKeys('  Alice@Example.COM ', '192.0.2.1', device, SECRET);
    t.equal(a.loginKey, attemptKeys('alice@example.com', '192.0.2.9', device, SECRET).loginKey);
    t.not(a.loginKey, attemptKeys('alice', '192.0.2.1', device, SECRET).loginKey, 'a username and an email are two logins');
    t.notMatch(a.loginKey, /alice/i);
    // A password typed into the login field must not be recoverable from the log by hashing guesses.
    t.not(a.loginKey, createHash('sha256').update('login:alice@example.com').digest('base64url'), 'not an unkeyed digest');
    t.not(a.loginKey, attemptKeys('alice@example.com', '192.0.2.1', device, OTHER_SECRET).loginKey, 'keyed by the device secret');
    t.equal(a.ip, '192.0.2.1', 'the address, for network rules only');
    t.equal(attemptKeys('alice', '::ffff:192.0.2.1', device, SECRET).ip, '192.0.2.1', 'an IPv4-mapped address matches IPv4 rules');
    t.equal(attemptKeys('alice', 'not-an-address', device, SECRET).ip, null);
  },
);
