// Which language a page speaks: OIDC Core 3.1.2.1 ui_locales, then RFC 9110 12.5.4 Accept-Language, then the default.
import t from 'tap';
import { fromAcceptLanguage, fromUiLocales, preferredLocale } from '../../../src/i18n/negotiate.js';
import { translate, translatePlural } from '../../../src/i18n/translate.js';

t.test('ui_locales: the first tag we speak, in the order given; a region or script is ignored', async (t) => {
  t.equal(fromUiLocales('de'), 'de');
  t.equal(fromUiLocales('ja fr-CA de'), 'fr');
  t.equal(fromUiLocales('DE-ch'), 'de');
  t.equal(fromUiLocales('ja'), undefined, 'an unsupported language is not an error: it falls through');
  t.equal(fromUiLocales(''), undefined);
  t.equal(fromUiLocales(null), undefined);
});

t.test('Accept-Language: the highest q-value we speak, the first of equal ones; q=0 is "not acceptable"', async (t) => {
  t.equal(fromAcceptLanguage('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5'), 'fr');
  t.equal(fromAcceptLanguage('ja, de-CH;q=0.8, en;q=0.9'), 'en');
  t.equal(fromAcceptLanguage('de-CH'), 'de', 'de-CH matches de');
  t.equal(fromAcceptLanguage('en;q=0, fr;q=0.1'), 'fr');
  t.equal(fromAcceptLanguage('*'), undefined);
  t.equal(fromAcceptLanguage('ja, zh'), undefined);
  t.equal(fromAcceptLanguage(undefined), undefined);
});

t.test('ui_locales wins over Accept-Language; neither gives undefined (DEFAULT_LOCALE then applies)', async (t) => {
  t.equal(preferredLocale('de', 'fr'), 'de');
  t.equal(preferredLocale('ja', 'fr'), 'fr');
  t.equal(preferredLocale(undefined, 'ja'), undefined);
});

t.test('placeholders are filled, plurals follow the language (French says "1 connexion" and "0 connexion")', async (t) => {
  t.equal(translate('de', 'signIn.lead', { client: 'Demo' }), 'um mit Demo fortzufahren');
  t.equal(translatePlural('en', 'account.signIns', 0), '0 sign-ins');
  t.equal(translatePlural('en', 'account.signIns', 1), '1 sign-in');
  t.equal(translatePlural('fr', 'account.signIns', 0), '0 connexion');
  t.equal(translatePlural('de', 'account.signIns', 3), '3 Anmeldungen');
});
