// User codes (RFC 8628 6.1): the base-20 alphabet, the XXXX-XXXX display form, and what a typed code normalises to.
import t from 'tap';
import {
  formatUserCode,
  newUserCode,
  normaliseUserCode,
  USER_CODE_ALPHABET,
} from '../../../src/domain/device-flow/device-authorization.js';
import { userCodeEntryKey } from '../../../src/domain/device-flow/user-code-throttle.js';
import { timeAgo } from '../../../src/http/pages/views/device-pages.js';
import type { Locale } from '../../../src/i18n/catalog.js';
import { translator } from '../../../src/i18n/translate.js';

t.test('the alphabet is the 20 consonants of RFC 8628 6.1, without vowels', async (t) => {
  t.equal(USER_CODE_ALPHABET, 'BCDFGHJKLMNPQRSTVWXZ');
  t.equal(new Set(USER_CODE_ALPHABET).size, 20);
  t.notMatch(USER_CODE_ALPHABET, /[AEIOUY0-9]/);
});

t.test('a new user code is 8 letters of the alphabet, and every letter turns up', async (t) => {
  const seen = new Set<string>();
  for (let i = 0; i < 500; i += 1) {
    const code = newUserCode();
    t.match(code, /^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
    for (const ch of code) seen.add(ch);
  }
  t.equal(seen.size, 20, 'all 20 letters appear in 4000 draws');
});

t.test('codes are shown as XXXX-XXXX', async (t) => {
  t.equal(formatUserCode('BCDFGHJK'), 'BCDF-GHJK');
});

t.test('a typed code is compared case-insensitively, with dashes and white space ignored', async (t) => {
  for (const typed of ['BCDF-GHJK', 'bcdf-ghjk', 'BcDf gHjK', ' bcdfghjk ', 'BC-DF-GH-JK', 'bcdf\tghjk']) {
    t.equal(normaliseUserCode(typed), 'BCDFGHJK', JSON.stringify(typed));
  }
});

t.test('anything that cannot be a user code normalises to nothing', async (t) => {
  for (const typed of ['', 'BCDF-GHJ', 'BCDF-GHJKL', 'ABCD-EFGH', 'BCDF-GHJ1', 'BCDF_GHJK', 'BCDF.GHJK', 'ＢCDF-GHJK']) {
    t.equal(normaliseUserCode(typed), undefined, JSON.stringify(typed));
  }
});

t.test('the entry counter counts an IPv6 client per /64 and never names the address', async (t) => {
  t.equal(userCodeEntryKey('2001:db8:1:2::1'), userCodeEntryKey('2001:db8:1:2:ffff::9'));
  t.not(userCodeEntryKey('2001:db8:1:2::1'), userCodeEntryKey('2001:db8:1:3::1'));
  t.not(userCodeEntryKey('192.0.2.1'), userCodeEntryKey('192.0.2.2'));
  t.notMatch(userCodeEntryKey('192.0.2.1'), /192/);
});

t.test('the confirmation says how long ago the device asked', async (t) => {
  const now = new Date('2026-11-23T12:00:00Z');
  const ago = (seconds: number, locale: Locale = 'en') => timeAgo(translator(locale), new Date(now.getTime() - seconds * 1000), now);
  t.equal(ago(5), 'less than a minute ago');
  t.equal(ago(60), '1 minute ago');
  t.equal(ago(150), '2 minutes ago');
  t.equal(ago(3600), '1 hour ago');
  t.equal(ago(60, 'de'), 'vor 1 Minute');
  t.equal(ago(7200, 'de'), 'vor 2 Stunden');
  t.equal(ago(150, 'fr'), 'il y a 2 minutes');
});
