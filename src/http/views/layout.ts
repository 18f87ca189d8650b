// The page frame shared by every page, and the security headers that go with it.
import { createHash } from 'node:crypto';
import { html, SafeHtml } from '../../html.js';
import type { Translate } from '../../i18n/translate.js';

const STYLE = `
:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
body{margin:0;min-height:100vh;display:grid;place-items:center;background:#f3f4f6;color:#111827}
main{box-sizing:border-box;width:min(28rem,calc(100vw - 1rem));background:#fff;border-radius:12px;padding:clamp(1rem,5vw,2rem);overflow-wrap:anywhere;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.35rem;margin:0 0 .25rem}
p.lead{margin:0 0 1.5rem;color:#4b5563}
label{display:block;font-weight:600;margin:1rem 0 .35rem}
input[type=text],input[type=email],input[type=password]{box-sizing:border-box;width:100%;padding:.6rem .7rem;border:1px solid #d1d5db;border-radius:8px;font:inherit}
button{font:inherit;padding:.65rem 1rem;border-radius:8px;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;cursor:pointer;width:100%;margin-top:1.5rem}
button.secondary{background:transparent;color:#1d4ed8;margin-top:.5rem}
.error{background:#fef2f2;border:1px solid #fecaca;color:#991b1b;padding:.6rem .8rem;border-radius:8px;margin-bottom:1rem}
ul.scopes{padding-left:1.2rem;margin:.5rem 0 0}ul.scopes li{margin:.3rem 0}
h2{font-size:1.05rem;margin:1.75rem 0 .5rem}ul.devices{list-style:none;padding:0;margin:0}ul.devices li{border-top:1px solid #e5e7eb;padding:.75rem 0}.meta{color:#6b7280;font-size:.9rem;margin:.2rem 0 0}.notice{background:#ecfdf5;border:1px solid #a7f3d0;color:#065f46;padding:.6rem .8rem;border-radius:8px;margin-bottom:1rem}code.key{display:block;font-size:1.05rem;letter-spacing:.05em;word-spacing:.3em;margin:.5rem 0}img.qr{display:block;width:12rem;height:12rem;margin:1rem auto;background:#fff}
.field-error{color:#991b1b;font-size:.9rem;margin:.35rem 0 0}
.unverified{background:#fffbeb;border:1px solid #fcd34d;color:#78350f;padding:.6rem .8rem;border-radius:8px;margin-bottom:1rem}
.brand{margin:0 0 1rem;font-weight:600;color:#4b5563}.brand img{display:block;max-height:2.5rem;max-width:100%}
img.client-logo{display:block;max-height:3rem;max-width:8rem;margin:0 0 .75rem}p.client-links a{margin-right:.75rem}
@media (prefers-color-scheme:dark){.brand{color:#9ca3af}body{background:#111827;color:#f9fafb}main{background:#1f2937}p.lead{color:#9ca3af}a{color:#93c5fd}
input[type=text],input[type=email],input[type=password]{background:#111827;color:#f9fafb;border-color:#374151}button.secondary{color:#93c5fd}.field-error{color:#fca5a5}.meta{color:#9ca3af}}
`;

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/**
 * `style-src 'self'`: the brand colour's stylesheet (src/http/pages/branding.ts), when BRAND_COLOR is set.
 * `img-src https:`: the brand logo (BRAND_LOGO_URL) and, on the consent page, the client's registered logo_uri, which
 * may be on any https origin. Scripts stay forbidden but for the hashed ones of a few pages.
 */
const POLICY = `default-src 'none'; style-src 'sha256-${STYLE_HASH}' 'self'; img-src 'self' data: https:; frame-ancestors 'none'; base-uri 'none'`;

/** No script at all; the one inline style block is allowed by its hash. Pages are never framed. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': POLICY,
  'x-frame-options': 'DENY',
  // A page that opens ours in a popup keeps no handle on it (no steering it through sign-ins, no reading its state).
  'cross-origin-opener-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
});

/**
 * The page headers for a page with one inline script of its own, allowed by its hash: every other page keeps
 * `script-src` unset, so that `default-src 'none'` forbids all script there.
 */
export function headersAllowingScript(script: string): Readonly<Record<string, string>> {
  return headersAllowingScripts([script]);
}

/**
 * The same for a page with several inline scripts, each allowed by its hash. `fetchSelf`: the scripts may fetch
 * from the page's own origin (`connect-src 'self'`), as the passkey script asks for its WebAuthn options.
 */
export function headersAllowingScripts(
  scripts: readonly string[],
  options: { fetchSelf?: boolean } = {},
): Readonly<Record<string, string>> {
  const hashes = scripts.map((script) => `'sha256-${createHash('sha256').update(script).digest('base64')}'`).join(' ');
  const connect = options.fetchSelf ? "; connect-src 'self'" : '';
  return Object.freeze({ ...PAGE_HEADERS, 'content-security-policy': `${POLICY}; script-src ${hashes}${connect}` });
}

/** How the pages present the service (BRAND_*): its name or logo atop each page, and its colour's stylesheet. */
export interface PageBrand {
  readonly name: string;
  readonly logoUrl: string | null;
  /** `${issuer}/branding.css` when BRAND_COLOR is set; null keeps the built-in colour. */
  readonly stylesheetUrl: string | null;
}

/** What a page is written with: its language (a Translate) and the service's brand. */
export interface PageText extends Translate {
  readonly brand: PageBrand;
}

/**
 * `t`: the page's language, which its `<html lang>` names (WCAG 2.1 3.1.1 Language of Page), and the brand shown
 * atop it: the logo (its text alternative the service's name, WCAG 2.1 1.1.1), else the name.
 */
export function layout(t: PageText, title: string, body: SafeHtml): string {
  const { brand } = t;
  return html`<!doctype html>
<html lang="${t.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>${new SafeHtml(STYLE)}</style>
${brand.stylesheetUrl ? html`<link rel="stylesheet" href="${brand.stylesheetUrl}">` : ''}
</head>
<body>
<main>
${brand.logoUrl ? html`<p class="brand"><img src="${brand.logoUrl}" alt="${brand.name}"></p>` : brand.name ? html`<p class="brand">${brand.name}</p>` : ''}
${body}
</main>
</body>
</html>
`.value;
}
