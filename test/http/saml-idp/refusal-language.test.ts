// A refused SAML message's page speaks the reader's language (issue 39): German and French from the catalogs, never
// the SamlError's English description, which goes to the log; still no SAMLResponse leaves for the SP.
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { de } from '../../../src/i18n/locales/de.js';
import { en } from '../../../src/i18n/locales/en.js';
import { fr } from '../../../src/i18n/locales/fr.js';

const { app } = await buildTestApp(t);
const escaped = (text: string) => text.replaceAll("'", '&#39;').replaceAll('"', '&quot;');

for (const [language, catalog] of [
  ['en', en],
  ['de', de],
  ['fr', fr],
] as const) {
  t.test(`in ${language}, a SAMLRequest that is not one is refused with a page in ${language}`, async (t) => {
    const res = await app.inject({
      method: 'GET',
      url: '/sso/saml/sso?SAMLRequest=bm90IGEgbWVzc2FnZQ',
      headers: { 'accept-language': language },
    });
    t.equal(res.statusCode, 400);
    t.match(res.body, `<html lang="${language}"`);
    t.notMatch(res.body, /SAMLResponse/);
    const shown = /<p class="lead">([^<]*)<\/p>/.exec(res.body)?.[1];
    t.ok(shown, 'the page says why');
    t.ok(
      Object.entries(catalog).some(([key, text]) => key.startsWith('saml.refused.') && escaped(text) === shown),
      `the reason is a ${language} catalog sentence: ${shown}`,
    );
  });

  t.test(`in ${language}, a logout POST with no SAMLRequest is refused with a page in ${language}`, async (t) => {
    const res = await app.inject({
      method: 'POST',
      url: '/sso/saml/slo',
      headers: { 'accept-language': language, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'RelayState=x',
    });
    t.equal(res.statusCode, 400);
    t.match(res.body, escaped(catalog['saml.refused.bad_message']));
    t.notMatch(res.body, /there is no SAMLRequest/, 'not the English description');
  });
}
