// The form_post response page (OAuth 2.0 Form Post Response Mode 2): a form that posts the response to the
// client, submitted by one inline script allowed by its hash, and by its Continue button without JavaScript.
import { createHash } from 'node:crypto';
import { html, SafeHtml } from './html.js';
import { layout, PAGE_HEADERS } from './layout.js';

const SUBMIT_SCRIPT = 'document.forms[0].submit();';
const SUBMIT_SCRIPT_HASH = createHash('sha256').update(SUBMIT_SCRIPT).digest('base64');

/** The page policy with one change: this page's script is allowed, by its hash. */
function withScript(policy: string): string {
  const directives = new Map<string, string>();
  for (const directive of policy.split(';').map((d) => d.trim()).filter(Boolean)) {
    const name = directive.split(/\s+/, 1)[0]!.toLowerCase();
    if (!directives.has(name)) directives.set(name, directive);
  }
  directives.set('script-src', `script-src 'sha256-${SUBMIT_SCRIPT_HASH}'`);
  // No form-action: browsers apply it to the redirects that follow the submission too, so pinning the
  // redirect URI's origin would break clients whose callback redirects on; the form's target is fixed
  // server-side to the verified redirect URI, and nothing on the page is markup from outside.
  directives.delete('form-action');
  return [...directives.values()].join('; ');
}

export const FORM_POST_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  ...PAGE_HEADERS,
  'content-security-policy': withScript(PAGE_HEADERS['content-security-policy'] ?? "default-src 'none'"),
});

export interface FormPostInput {
  action: string;
  params: Readonly<Record<string, string>>;
}

export function formPostPage(input: FormPostInput): string {
  return layout(
    'Returning to the application',
    html`<h1>Returning to the application</h1>
<p class="lead">If nothing happens, select Continue.</p>
<form method="post" action="${input.action}">
${Object.entries(input.params).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">
`)}<button type="submit">Continue</button>
</form>
<script>${new SafeHtml(SUBMIT_SCRIPT)}</script>`,
  );
}
