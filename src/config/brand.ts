// BRAND_*: how the pages and mails present the service, and the name authenticator apps show (TOTP_ISSUER).
import type { Reader } from './reader.js';

/** BRAND_*: how the pages and mails present the service. */
export interface BrandSettings {
  /** The service's name as people know it: on every page, in mails, beside passkeys. */
  readonly name: string;
  /** An https URL, or a path on this origin, of the logo shown at the top of every page; null: none. */
  readonly logoUrl: string | null;
  /** The primary colour (#rrggbb) of buttons and links; null keeps the built-in one. */
  readonly color: string | null;
}

/** TOTP_ISSUER (BASE_URL's host by default) and BRAND_* (the name defaults to TOTP_ISSUER). */
export function brandSettings({ text, problems }: Reader, baseUrl: string): { totpIssuer: string; brand: BrandSettings } {
  // The Key Uri Format separates issuer and account with a colon: the issuer may not hold one.
  const totpIssuer = text('TOTP_ISSUER', hostnameOf(baseUrl));
  if (totpIssuer.length > 64 || totpIssuer.includes(':'))
    problems.push(`TOTP_ISSUER must be at most 64 characters, without ":" (got "${totpIssuer}")`);

  const brandName = text('BRAND_NAME', totpIssuer);
  if (brandName.length > 64 || [...brandName].some((c) => c < ' ' || c === '\u007f'))
    problems.push(`BRAND_NAME must be at most 64 characters, without control characters (got "${brandName}")`);
  const logoUrl = text('BRAND_LOGO_URL') || null;
  if (logoUrl !== null && !isBrandLogoUrl(logoUrl))
    problems.push(`BRAND_LOGO_URL must be an https URL or a path on this server starting with / (got "${logoUrl}")`);
  const brandColor = text('BRAND_COLOR') || null;
  const colorProblem = brandColor === null ? undefined : brandColorProblem(brandColor);
  if (colorProblem) problems.push(`BRAND_COLOR ${colorProblem}`);

  return { totpIssuer, brand: Object.freeze({ name: brandName, logoUrl, color: brandColor?.toLowerCase() ?? null }) };
}

/** The default TOTP_ISSUER: BASE_URL's host name, or "SSO" for an IPv6 address (its colons may not be in it). */
function hostnameOf(url: string): string {
  try {
    const { hostname } = new URL(url);
    return hostname && !hostname.includes(':') ? hostname : 'SSO';
  } catch {
    return 'SSO';
  }
}

/** BRAND_LOGO_URL: an https URL (the pages allow images from any https origin) or a path on this origin. */
function isBrandLogoUrl(value: string): boolean {
  if (/^\/(?!\/)\S*$/.test(value)) return true;
  try {
    return new URL(value).protocol === 'https:' && !/\s/.test(value);
  } catch {
    return false;
  }
}

/**
 * What is wrong with a BRAND_COLOR, if anything: it must be #rrggbb, and white button text on it must keep WCAG 2.1
 * 1.4.3's contrast of at least 4.5:1 (contrast ratio and relative luminance as WCAG 2.1 defines them).
 */
export function brandColorProblem(value: string): string | undefined {
  if (!/^#[0-9a-fA-F]{6}$/.test(value)) return `must be a colour as #rrggbb (got "${value}")`;
  const channel = (hex: string) => {
    const c = parseInt(hex, 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(value.slice(1, 3)) + 0.7152 * channel(value.slice(3, 5)) + 0.0722 * channel(value.slice(5, 7));
  const ratio = 1.05 / (luminance + 0.05);
  if (ratio < 4.5)
    return `${value} is too light: white text on it has a contrast of ${ratio.toFixed(2)}:1, and WCAG 2.1 AA asks for 4.5:1 (pick a darker shade)`;
  return undefined;
}
