// One message content as an email's two parts (RFC 2046 5.1.4 multipart/alternative): plain text for every mail
// reader, and HTML escaped by construction. Both say the same thing; neither loads anything from elsewhere.
import { html } from '../../html.js';
import type { MessageContent } from './messages.js';

export interface RenderedMail {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

export function renderMail(content: MessageContent): RenderedMail {
  return { subject: content.subject, text: textPart(content), html: htmlPart(content) };
}

function textPart(c: MessageContent): string {
  const blocks = [...c.intro];
  if (c.code) blocks.push(`    ${c.code}`);
  if (c.action) blocks.push(`${c.action.label}: ${c.action.url}`);
  blocks.push(...c.outro);
  return `${blocks.join('\n\n')}\n`;
}

const PARAGRAPH = 'margin:0 0 16px;font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1f2328';
const CODE = 'margin:0 0 16px;font:700 28px/1.2 ui-monospace,Menlo,Consolas,monospace;letter-spacing:4px;color:#1f2328';
const BUTTON =
  'display:inline-block;padding:10px 18px;border-radius:6px;background:#1f6feb;color:#ffffff;text-decoration:none;font:600 16px system-ui,sans-serif';

function htmlPart(c: MessageContent): string {
  const paragraphs = (texts: readonly string[]) => texts.map((p) => html`<p style="${PARAGRAPH}">${p}</p>`);
  return html`<!doctype html>
<html lang="${c.locale}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${c.subject}</title></head>
<body style="margin:0;padding:24px;background:#ffffff">
<div style="max-width:560px;margin:0 auto">
${paragraphs(c.intro)}
${c.code ? html`<p style="${CODE}">${c.code}</p>` : ''}
${c.action ? html`<p style="${PARAGRAPH}"><a href="${c.action.url}" style="${BUTTON}">${c.action.label}</a></p>` : ''}
${paragraphs(c.outro)}
</div>
</body>
</html>
`.value;
}
