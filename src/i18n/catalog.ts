// The languages the pages and mails speak, and the type every catalog must fill: the keys of the English one.
import { en } from './locales/en.js';
import { de } from './locales/de.js';
import { fr } from './locales/fr.js';

export type MessageKey = keyof typeof en;

/** A catalog: one string per English key; `satisfies Catalog` makes the compiler refuse a missing or unknown key. */
export type Catalog = { readonly [K in MessageKey]: string };

/** BCP 47 primary language subtags, in the order discovery lists them (OIDC Discovery 1.0 3: ui_locales_supported). */
export const LOCALES = ['en', 'de', 'fr'] as const;
export type Locale = (typeof LOCALES)[number];

export const CATALOGS: Readonly<Record<Locale, Catalog>> = Object.freeze({ en, de, fr });

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}
