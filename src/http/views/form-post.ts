// The form_post response page (OAuth 2.0 Form Post Response Mode 2): a form that posts the response to the
// client, submitted by one inline script allowed by its hash, and by its Continue button without JavaScript.
import { html, SafeHtml } from '../../html.js';
import { headersAllowingScript, layout, type PageText } from './layout.js';

const SUBMIT_SCRIPT = 'document.forms[0].submit();';
// No form-action directive: browsers apply it to the redirects that follow the submission too, so pinning the
// redirect URI's origin would break clients whose callback redirects on; the form's target is fixed server-side
// to the verified redirect URI, and nothing on the page is markup from outside.
export const FORM_POST_HEADERS = headersAllowingScript(SUBMIT_SCRIPT);

export interface FormPostInput {
  action: string;
  params: Readonly<Record<string, string>>;
}

export function formPostPage(t: PageText, input: FormPostInput): string {
  return layout(
    t,
    t('formPost.title'),
    html`<h1>${t('formPost.title')}</h1>
<p class="lead">${t('formPost.lead')}</p>
<form method="post" action="${input.action}">
${Object.entries(input.params).map(
  ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">
`,
)}<button type="submit">${t('common.continue')}</button>
</form>
<script>${new SafeHtml(SUBMIT_SCRIPT)}</script>`,
  );
}
