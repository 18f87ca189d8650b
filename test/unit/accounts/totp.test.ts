// TOTP (RFC 6238) and HOTP (RFC 4226) against the RFCs' own test vectors, the drift window, replay, the otpauth
// URI, and base32 (RFC 4648).
import t from 'tap';
import { base32Decode, base32Encode } from '../../../src/domain/accounts/base32.js';
import { hotp, matchingStep, otpauthUri, timeStep, totp } from '../../../src/domain/accounts/totp.js';

/** RFC 6238 Appendix B and RFC 4226 Appendix D: the ASCII secret "12345678901234567890" (20 bytes) for SHA-1. */
const RFC_SECRET = Buffer.from('12345678901234567890', 'ascii');

t.test('TOTP matches the SHA-1 rows of RFC 6238 Appendix B (8 digits, 30 s steps)', async (t) => {
  const rows: Array<[number, string, string]> = [
    [59, '0000000000000001', '94287082'],
    [1111111109, '00000000023523EC', '07081804'],
    [1111111111, '00000000023523ED', '14050471'],
    [1234567890, '000000000273EF07', '89005924'],
    [2000000000, '0000000003F940AA', '69279037'],
    [20000000000, '0000000027BC86AA', '65353130'],
  ];
  for (const [seconds, hexStep, code] of rows) {
    const at = new Date(seconds * 1000);
    t.equal(timeStep(at), Number.parseInt(hexStep, 16), `T for ${seconds}`);
    t.equal(totp(RFC_SECRET, at, { digits: 8 }), code, `TOTP at ${seconds}`);
  }
});

t.test('HOTP matches RFC 4226 Appendix D (6 digits, counters 0 to 9)', async (t) => {
  const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
  t.same(
    expected.map((_, counter) => hotp(RFC_SECRET, counter)),
    expected,
  );
});

t.test('a six-digit code is the last six digits of the eight-digit one (dynamic truncation modulo 10^d)', async (t) => {
  const at = new Date(1111111109 * 1000);
  t.equal(totp(RFC_SECRET, at), '081804');
});

t.test('a code of the current step or one step either side is accepted, two steps off is not', async (t) => {
  const now = new Date(1_700_000_015_000);
  const step = timeStep(now);
  t.equal(matchingStep(RFC_SECRET, hotp(RFC_SECRET, step), now, null), step);
  t.equal(matchingStep(RFC_SECRET, hotp(RFC_SECRET, step - 1), now, null), step - 1, 'a clock 30 s behind');
  t.equal(matchingStep(RFC_SECRET, hotp(RFC_SECRET, step + 1), now, null), step + 1, 'a clock 30 s ahead');
  t.equal(matchingStep(RFC_SECRET, hotp(RFC_SECRET, step - 2), now, null), null);
  t.equal(matchingStep(RFC_SECRET, hotp(RFC_SECRET, step + 2), now, null), null);
});

t.test('a code of a step at or before the last one used is refused as a replay (RFC 6238 5.2)', async (t) => {
  const now = new Date(1_700_000_015_000);
  const step = timeStep(now);
  const code = hotp(RFC_SECRET, step);
  t.equal(matchingStep(RFC_SECRET, code, now, step), null, 'the same step again');
  t.equal(matchingStep(RFC_SECRET, hotp(RFC_SECRET, step - 1), now, step), null, 'an older step after a newer one');
  t.equal(matchingStep(RFC_SECRET, hotp(RFC_SECRET, step + 1), now, step), step + 1, 'the next step is fine');
});

t.test('anything but six digits matches no step', async (t) => {
  const now = new Date(1_700_000_015_000);
  const code = hotp(RFC_SECRET, timeStep(now));
  for (const typed of ['', `${code}0`, code.slice(1), `${code.slice(0, 5)}x`, ` ${code}`, '１２３４５６']) {
    t.equal(matchingStep(RFC_SECRET, typed, now, null), null, JSON.stringify(typed));
  }
});

t.test('the otpauth URI names the issuer, the account and the common parameters', async (t) => {
  const uri = new URL(otpauthUri({ issuer: 'Example SSO', account: 'alice@example.com', secret: RFC_SECRET }));
  t.equal(uri.protocol, 'otpauth:');
  t.equal(uri.host, 'totp');
  t.equal(decodeURIComponent(uri.pathname), '/Example SSO:alice@example.com');
  t.equal(uri.searchParams.get('secret'), 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
  t.equal(uri.searchParams.get('issuer'), 'Example SSO');
  t.equal(uri.searchParams.get('algorithm'), 'SHA1');
  t.equal(uri.searchParams.get('digits'), '6');
  t.equal(uri.searchParams.get('period'), '30');
  t.notMatch(uri.href, /\+/, 'a space is %20, never +');
});

t.test('base32 follows RFC 4648 section 10 (without padding) and reads keys as people type them', async (t) => {
  const vectors: Array<[string, string]> = [
    ['', ''],
    ['f', 'MY'],
    ['fo', 'MZXQ'],
    ['foo', 'MZXW6'],
    ['foob', 'MZXW6YQ'],
    ['fooba', 'MZXW6YTB'],
    ['foobar', 'MZXW6YTBOI'],
  ];
  for (const [clear, encoded] of vectors) {
    t.equal(base32Encode(Buffer.from(clear)), encoded, `encode ${clear}`);
    t.equal(base32Decode(encoded)?.toString(), clear, `decode ${encoded}`);
  }
  t.equal(base32Decode('mzxw 6ytb-oi======')?.toString(), 'foobar');
  t.equal(base32Decode('MZXW1'), undefined, '1 is not in the alphabet');
});
