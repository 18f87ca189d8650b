// The language of the page a request is answered with: the interaction's ui_locales when there is one, the
// browser's Accept-Language, then DEFAULT_LOCALE (src/i18n/negotiate.ts).
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Locale } from '../i18n/catalog.js';
import { preferredLocale } from '../i18n/negotiate.js';
import { translator } from '../i18n/translate.js';
import type { PageBrand, PageText } from './views/layout.js';

export interface PageLanguage extends PageText {
  /**
   * The language the person asked for (ui_locales or Accept-Language); undefined when DEFAULT_LOCALE applied. Only
   * this one is handed to the domain: remembered as the user's, and written into the mails a page queues (a mail
   * without it speaks the user's remembered language, else DEFAULT_LOCALE).
   */
  readonly preferred: Locale | undefined;
}

export type PageConfig = Pick<Config, 'defaultLocale' | 'brand' | 'issuer'>;

export function pageLanguage(request: FastifyRequest, config: PageConfig, uiLocales?: string | null): PageLanguage {
  const preferred = preferredLocale(uiLocales, request.headers['accept-language']);
  return Object.assign(translator(preferred ?? config.defaultLocale), { preferred, brand: pageBrand(config) });
}

/** The brand of every page (BRAND_*): its colour's stylesheet is served by src/http/pages/branding.ts. */
function pageBrand(config: PageConfig): PageBrand {
  const { name, logoUrl, color } = config.brand;
  return { name, logoUrl, stylesheetUrl: color ? `${config.issuer}/branding.css` : null };
}
