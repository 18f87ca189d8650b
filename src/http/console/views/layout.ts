// The web console's page frame (issue 20, docs/console.md): the same headers and policy as every other page
// (PAGE_HEADERS: no script at all), a navigation bar, and the console's stylesheet served from /admin/console.css
// (the policy's `style-src 'self'`), so no inline style needs a hash of its own. It follows the browser's colour
// scheme, light or dark (prefers-color-scheme), as the sign-in pages do.
import { html, type SafeHtml } from '../../../html.js';
import type { MessageKey } from '../../../i18n/catalog.js';
import type { Translate } from '../../../i18n/translate.js';

export const CONSOLE_CSS = `
:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
body{margin:0;background:#f3f4f6;color:#111827}
header{background:#1e3a8a;color:#fff;padding:.5rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
header a{color:#fff}header nav ul{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:0;padding:0}
header nav a[aria-current=page]{font-weight:700}
header form{margin-left:auto}header .who{margin:0}
header button{background:transparent;border:1px solid #fff;color:#fff;margin:0}
main{box-sizing:border-box;max-width:72rem;margin:1rem auto;background:#fff;border-radius:8px;padding:1rem 1.25rem;overflow-wrap:anywhere}
h1{font-size:1.4rem;margin:0 0 1rem}h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem;font-size:.95rem}
th,td{text-align:left;border-bottom:1px solid #e5e7eb;padding:.4rem .5rem;vertical-align:top}
.scroll{overflow-x:auto}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=text],input[type=email],input[type=password],input[type=search],input[type=url],select,textarea{box-sizing:border-box;width:100%;max-width:36rem;padding:.45rem .6rem;border:1px solid #6b7280;border-radius:6px;font:inherit}
textarea{min-height:4rem}
.check label{display:inline;font-weight:400}
fieldset{border:1px solid #e5e7eb;border-radius:6px;margin:.75rem 0;max-width:36rem}legend{font-weight:600}
button{font:inherit;padding:.45rem .9rem;border-radius:6px;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;cursor:pointer;margin-top:.75rem}
button.danger{background:#b91c1c;border-color:#b91c1c}
form.inline{display:inline}form.inline button{margin:0 .25rem 0 0}
form.filters{display:flex;flex-wrap:wrap;gap:0 1rem;align-items:flex-end}form.filters label{margin-top:.25rem}
.error{background:#fef2f2;border:1px solid #fecaca;color:#991b1b;padding:.6rem .8rem;border-radius:6px;margin-bottom:1rem}
.notice{background:#ecfdf5;border:1px solid #a7f3d0;color:#065f46;padding:.6rem .8rem;border-radius:6px;margin-bottom:1rem}
code.secret{display:block;font-size:1.05rem;padding:.5rem;background:#f3f4f6;border-radius:6px;margin:.5rem 0}
.meta{color:#4b5563;font-size:.9rem}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:1rem}
figure{margin:0;border:1px solid #e5e7eb;border-radius:6px;padding:.5rem}figcaption{font-weight:600;margin-bottom:.25rem}
svg.chart{width:100%;height:auto}svg.chart rect{fill:#1d4ed8}svg.chart text{font-size:10px;fill:#374151}svg.chart line{stroke:#9ca3af}
a{color:#1d4ed8}
@media (prefers-color-scheme:dark){
body{background:#111827;color:#f9fafb}main{background:#1f2937}a{color:#93c5fd}header a{color:#fff}
th,td{border-bottom-color:#4b5563}figure,fieldset{border-color:#4b5563}
input[type=text],input[type=email],input[type=password],input[type=search],input[type=url],select,textarea{background:#111827;color:#f9fafb;border-color:#9ca3af}
.error{background:#450a0a;border-color:#991b1b;color:#fecaca}.notice{background:#022c22;border-color:#047857;color:#a7f3d0}
code.secret{background:#111827}.meta{color:#d1d5db}
svg.chart rect{fill:#60a5fa}svg.chart text{fill:#e5e7eb}svg.chart line{stroke:#9ca3af}
}
`;

export interface ConsoleFrame {
  /** `${BASE_URL}/admin`. */
  base: string;
  /** The language of the page (its `<html lang>`, the navigation, the frame's words). */
  t: Translate;
  title: string;
  /** The navigation entry of this page (its path below base), marked aria-current. */
  section: string;
  /** The signed-in person; absent on the pages shown before there is one (a refusal). */
  person?: { username: string; role: string; csrf: string };
}

const SECTIONS: ReadonlyArray<[string, MessageKey]> = [
  ['', 'console.nav.dashboard'],
  ['/clients', 'console.nav.clients'],
  ['/users', 'console.nav.users'],
  ['/groups', 'console.nav.groups'],
  ['/risk-rules', 'console.nav.riskRules'],
  ['/security-events', 'console.nav.securityEvents'],
  ['/signing-keys', 'console.nav.signingKeys'],
  ['/webhooks', 'console.nav.webhooks'],
  ['/connections', 'console.nav.connections'],
  ['/saml-service-providers', 'console.nav.samlSps'],
  ['/directories', 'console.nav.directories'],
  ['/resource-servers', 'console.nav.resourceServers'],
  ['/scim-tokens', 'console.nav.scimTokens'],
  ['/audit', 'console.nav.audit'],
];

export function consoleLayout(frame: ConsoleFrame, body: SafeHtml): string {
  const { base, person, t } = frame;
  const role = (r: string) => (r === 'admin' || r === 'auditor' ? t(`console.role.${r}`) : r);
  return html`<!doctype html>
<html lang="${t.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${frame.title} · ${t('console.product')}</title>
<link rel="stylesheet" href="${base}/console.css">
</head>
<body>
<header>
${
  person
    ? html`<nav aria-label="${t('console.nav.label')}"><ul>${SECTIONS.map(
        ([path, key]) => html`<li><a href="${base}${path}"${path === frame.section ? html` aria-current="page"` : ''}>${t(key)}</a></li>`,
      )}</ul></nav>
<p class="who">${t('console.who', { username: person.username, role: role(person.role) })}</p>
<form method="post" action="${base}/sign-out"><input type="hidden" name="csrf" value="${person.csrf}"><button type="submit">${t('console.signOut')}</button></form>`
    : html`<p class="who">${t('console.product')}</p>`
}
</header>
<main>
<h1>${frame.title}</h1>
${body}
</main>
</body>
</html>
`.value;
}

/** The "Next page" link of a list read a page at a time: the search kept, `after` the last key of this page. */
export function nextPageLink(t: Translate, listUrl: string, q: string, after: string | undefined): SafeHtml | '' {
  if (after === undefined) return '';
  return html`<p><a href="${listUrl}?${new URLSearchParams({ ...(q ? { q } : {}), after }).toString()}">${t('console.nextPage')}</a></p>`;
}
