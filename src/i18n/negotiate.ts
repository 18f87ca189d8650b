// Which language a page or a mail is in: the authorization request's ui_locales, then the browser's
// Accept-Language, then DEFAULT_LOCALE. No HTTP framework here: the routes pass the two values in.
import { isLocale, type Locale } from './catalog.js';

/** The primary language subtag of a BCP 47 tag, if it is one we speak ("de-CH" → "de"; RFC 4647 3.4 lookup). */
function supported(tag: string): Locale | undefined {
  const primary = tag.trim().toLowerCase().split('-')[0];
  return isLocale(primary) ? primary : undefined;
}

/**
 * OIDC Core 3.1.2.1: ui_locales is the "End-User's preferred languages and scripts for the user interface,
 * represented as a space-separated list of BCP47 [RFC5646] language tag values, ordered by preference".
 * The first one we speak; undefined if none (an unsupported one is not an error: "An error SHOULD NOT result").
 */
export function fromUiLocales(uiLocales: string | null | undefined): Locale | undefined {
  for (const tag of (uiLocales ?? '').split(' ')) {
    const locale = tag === '' ? undefined : supported(tag);
    if (locale) return locale;
  }
  return undefined;
}

/**
 * RFC 9110 12.5.4: Accept-Language is a list of language ranges with optional weights ("q"); a weight of 0 means
 * "not acceptable". The highest-weighted range we speak, the first of equal weights; "*" matches nothing in
 * particular (the default then applies).
 */
export function fromAcceptLanguage(header: string | undefined): Locale | undefined {
  if (!header) return undefined;
  const ranges = header.split(',').map((part, index) => {
    const [range = '', ...attrs] = part.split(';');
    const q = attrs.map((a) => a.trim().match(/^q=([01](?:\.\d{0,3})?)$/i)).find((m) => m)?.[1];
    return { locale: supported(range), weight: q === undefined ? 1 : Number(q), index };
  });
  const best = ranges.filter((r) => r.locale !== undefined && r.weight > 0).sort((a, b) => b.weight - a.weight || a.index - b.index)[0];
  return best?.locale;
}

/**
 * The language a person asked for: the authorization request's ui_locales (remembered for its interaction) win
 * over the browser's Accept-Language; undefined when neither names one we speak (then DEFAULT_LOCALE applies).
 */
export function preferredLocale(uiLocales: string | null | undefined, acceptLanguage: string | undefined): Locale | undefined {
  return fromUiLocales(uiLocales) ?? fromAcceptLanguage(acceptLanguage);
}
