// Reads the one form of a sign-in or consent page: where it posts, its hidden fields, its submit buttons.

export interface PageForm {
  action: string;
  hidden: Array<[string, string]>;
  hasPassword: boolean;
  buttons: Array<{ name: string; value: string }>;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'" };

function decode(value: string): string {
  return value.replace(/&(amp|lt|gt|quot|#39|apos);/g, (_, e: string) => ENTITIES[e] ?? '');
}

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([a-zA-Z-]+)(?:="([^"]*)")?/g)) out[m[1]!.toLowerCase()] = decode(m[2] ?? '');
  return out;
}

/** The first POST form of the page, or undefined. */
export function readForm(html: string): PageForm | undefined {
  const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) return undefined;
  const formAttributes = attributes(form[1]!);
  if ((formAttributes.method ?? 'get').toLowerCase() !== 'post' || !formAttributes.action) return undefined;
  const result: PageForm = { action: formAttributes.action, hidden: [], hasPassword: false, buttons: [] };
  for (const m of form[2]!.matchAll(/<(input|button)\b([^>]*)>/gi)) {
    const a = attributes(m[2]!);
    const type = (a.type ?? (m[1]!.toLowerCase() === 'button' ? 'submit' : 'text')).toLowerCase();
    if (type === 'hidden' && a.name) result.hidden.push([a.name, a.value ?? '']);
    else if (type === 'password') result.hasPassword = true;
    else if (type === 'submit' && a.name) result.buttons.push({ name: a.name, value: a.value ?? '' });
  }
  return result;
}
