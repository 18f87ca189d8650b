// Looks a key up in a language's catalog and fills its {placeholders}. Plain text out: HTML escaping stays with the
// views' `html` template (src/html.ts), mails' with theirs.
import { CATALOGS, type Locale, type MessageKey } from './catalog.js';

export type Params = Readonly<Record<string, string | number>>;

/** A key with `.one` and `.other` forms ("1 sign-in", "3 sign-ins"), chosen by the language's plural rule. */
export type PluralKey = { [K in MessageKey]: K extends `${infer Base}.one` ? Base : never }[MessageKey];

/** A sentence not yet in a language: what the domain hands to the pages, which say it in the reader's. */
export interface Text {
  readonly key: MessageKey;
  readonly params?: Params;
}

export function text(key: MessageKey, params?: Params): Text {
  return params ? { key, params } : { key };
}

export function translate(locale: Locale, key: MessageKey, params: Params = {}): string {
  return CATALOGS[locale][key].replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}

/** Unicode CLDR plural rules (Intl.PluralRules): French says "1 connexion", "0 connexion"; English "0 sign-ins". */
export function translatePlural(locale: Locale, key: PluralKey, count: number, params: Params = {}): string {
  const form = new Intl.PluralRules(locale).select(count) === 'one' ? 'one' : 'other';
  return translate(locale, `${key}.${form}` as MessageKey, { ...params, count });
}

/** A language's translate, with its language attached (the pages' `<html lang>`). */
export interface Translate {
  (key: MessageKey, params?: Params): string;
  readonly locale: Locale;
  /** The same for a Text the domain returned. */
  text(message: Text): string;
  plural(key: PluralKey, count: number, params?: Params): string;
}

export function translator(locale: Locale): Translate {
  const t = (key: MessageKey, params?: Params) => translate(locale, key, params);
  return Object.assign(t, {
    locale,
    text: (m: Text) => translate(locale, m.key, m.params),
    plural: (key: PluralKey, count: number, params?: Params) => translatePlural(locale, key, count, params),
  });
}
