// Every language says everything English says (issue 17): the same keys, the same placeholders, nothing empty. The
// compiler refuses a catalog without a key (`satisfies Catalog`); this test says which key, and also catches a
// placeholder dropped or misspelt in a translation, which the compiler cannot see.
import t from 'tap';
import { CATALOGS, LOCALES } from '../../../src/i18n/catalog.js';
import { en } from '../../../src/i18n/locales/en.js';

const placeholders = (text: string) => [...new Set(text.match(/\{\w+\}/g) ?? [])].sort();
const englishKeys = Object.keys(en).sort();

for (const locale of LOCALES) {
  t.test(`the ${locale} catalog has every English key, with the same placeholders, and no empty text`, async (t) => {
    const catalog: Record<string, string> = CATALOGS[locale];
    const keys = Object.keys(catalog).sort();
    t.same(
      englishKeys.filter((key) => !Object.hasOwn(catalog, key)),
      [],
      `keys missing from src/i18n/locales/${locale}.ts`,
    );
    t.same(
      keys.filter((key) => !Object.hasOwn(en, key)),
      [],
      `keys in src/i18n/locales/${locale}.ts that English does not have`,
    );
    const wrong = englishKeys.filter(
      (key) => Object.hasOwn(catalog, key) && placeholders(catalog[key]!).join() !== placeholders(en[key as keyof typeof en]).join(),
    );
    t.same(wrong, [], 'keys whose placeholders differ from the English ones');
    t.same(
      keys.filter((key) => (catalog[key] ?? '').trim() === ''),
      [],
      'keys with empty text',
    );
  });
}

t.test('plural keys come in .one and .other pairs', async (t) => {
  for (const key of englishKeys) {
    const pair = key.match(/^(.*)\.(one|other)$/);
    if (pair) t.ok(Object.hasOwn(en, `${pair[1]}.${pair[2] === 'one' ? 'other' : 'one'}`), `${key} has its pair`);
  }
});
