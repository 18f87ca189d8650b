// The few DOM members the SAML connection code reads, over @xmldom/xmldom loaded without its type declarations:
// they pull the browser's "dom" lib into the whole program (its fetch and Headers types break the Node ones).
import { createRequire } from 'node:module';

export interface XmlNode {
  readonly nodeType: number;
  readonly namespaceURI: string | null;
  readonly localName: string | null;
  readonly firstChild: XmlNode | null;
  readonly nextSibling: XmlNode | null;
  readonly textContent: string | null;
  getAttribute(name: string): string | null;
}

export interface XmlDocument {
  readonly documentElement: XmlNode | null;
}

interface ParserOptions {
  locator: object;
  errorHandler: { warning(msg: string): void; error(msg: string): void; fatalError(msg: string): void };
}

const xmldom = createRequire(import.meta.url)('@xmldom/xmldom') as {
  DOMParser: new (options: ParserOptions) => { parseFromString(xml: string, mimeType: string): XmlDocument };
};

export function parseXml(xml: string, onError: (message: string) => never): XmlDocument {
  return new xmldom.DOMParser({ locator: {}, errorHandler: { warning: onError, error: onError, fatalError: onError } }).parseFromString(
    xml,
    'text/xml',
  );
}

/** The element children of `parent` in namespace `ns` named `name`. */
export function childElements(parent: XmlNode, ns: string, name: string): XmlNode[] {
  const out: XmlNode[] = [];
  for (let n = parent.firstChild; n !== null; n = n.nextSibling)
    if (n.nodeType === 1 && n.namespaceURI === ns && n.localName === name) out.push(n);
  return out;
}
