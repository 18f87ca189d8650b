// A translated sentence with markup in its placeholders ("Signed in as <strong>{account}</strong>"): the words
// come from the catalog and are escaped; only the values given here as SafeHtml are markup.
import { escapeHtml, SafeHtml } from '../../html.js';
import type { MessageKey } from '../../i18n/catalog.js';
import type { Params, Translate } from '../../i18n/translate.js';

export function richText(t: Translate, key: MessageKey, markup: Readonly<Record<string, SafeHtml>>, params: Params = {}): SafeHtml {
  // translate() leaves the placeholders it has no value for as they are: those are the markup's.
  const sentence = t(key, params);
  const out = sentence
    .split(/(\{\w+\})/)
    .map((part) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      return name !== undefined && Object.hasOwn(markup, name) ? (markup[name] as SafeHtml).value : escapeHtml(part);
    })
    .join('');
  return new SafeHtml(out);
}
