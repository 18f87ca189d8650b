// Reads XML that arrives from outside (SAML messages, peers' metadata) the one careful way: a size cap before any
// parsing, no document type declaration ever (so no entity can expand or reach out), no processing instruction but
// the XML declaration, and any parse error fatal instead of the parser's best guess.
import { DOMParser } from '@xmldom/xmldom';
import { SamlError } from './saml-error.js';

/** A SAML protocol message, decoded: generous for a response with many attributes and groups. */
export const MAX_MESSAGE_BYTES = 256 * 1024;
/** A metadata document: one entity with a few certificates and endpoints. */
export const MAX_METADATA_BYTES = 1024 * 1024;

/** `<!DOCTYPE` or `<!ENTITY` anywhere, whatever the case: refused before the parser sees it. */
const DOCUMENT_TYPE = /<!\s*(doctype|entity)/i;
/** A processing instruction other than the XML declaration at the very start. */
const PROCESSING_INSTRUCTION = /<\?(?!xml[\s?])/i;

/**
 * Parses `xml` into a document, or throws SamlError: `too_large` past `maxBytes` (counted in UTF-8 bytes before
 * parsing), `forbidden_markup` for a DTD, entity declaration or processing instruction, `malformed_xml` for anything
 * the parser would have to repair (xmldom's warnings included: a repaired document is not the one that was signed).
 */
export function parseUntrustedXml(xml: string, maxBytes: number): Document {
  if (Buffer.byteLength(xml, 'utf8') > maxBytes) throw new SamlError('too_large', `the XML is over ${maxBytes} bytes`);
  if (DOCUMENT_TYPE.test(xml)) throw new SamlError('forbidden_markup', 'a document type declaration is not accepted');
  const declarationEnd = /^<\?xml[\s?]/.test(xml) ? xml.indexOf('?>') + 2 : 0;
  if (PROCESSING_INSTRUCTION.test(xml.slice(declarationEnd)) || /<\?xml[\s?]/i.test(xml.slice(declarationEnd))) {
    throw new SamlError('forbidden_markup', 'a processing instruction is not accepted');
  }
  const refuse = (message: string): never => {
    throw new SamlError('malformed_xml', `the XML is not well-formed (${message.split('\n')[0]?.slice(0, 120) ?? ''})`);
  };
  let document: Document;
  try {
    document = new DOMParser({
      locator: {},
      errorHandler: { warning: refuse, error: refuse, fatalError: refuse },
    }).parseFromString(xml, 'text/xml');
  } catch (error) {
    if (error instanceof SamlError) throw error;
    throw new SamlError('malformed_xml', 'the XML is not well-formed');
  }
  if (!document?.documentElement || document.doctype) refuse('no root element');
  return document;
}

/** The element children of `parent` named `localName` in namespace `ns`, in document order. */
export function childElements(parent: Element | Document, ns: string, localName: string): Element[] {
  const found: Element[] = [];
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === node.ELEMENT_NODE) {
      const element = node as Element;
      if (element.namespaceURI === ns && element.localName === localName) found.push(element);
    }
  }
  return found;
}

/** The one child `ns:localName` of `parent`, undefined when there is none; SamlError when there are several. */
export function onlyChild(parent: Element | Document, ns: string, localName: string): Element | undefined {
  const found = childElements(parent, ns, localName);
  if (found.length > 1) throw new SamlError('bad_message', `more than one ${localName} element`);
  return found[0];
}

/**
 * The whole text of `element`: every text and CDATA descendant joined, comments skipped rather than ending the text
 * (`user@evil.test<!---->.example.org` reads as `user@evil.test.example.org`, as canonicalisation signed it).
 */
export function textOf(element: Element): string {
  let text = '';
  for (let node = element.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === node.TEXT_NODE || node.nodeType === node.CDATA_SECTION_NODE) text += node.nodeValue ?? '';
    else if (node.nodeType === node.ELEMENT_NODE) text += textOf(node as Element);
  }
  return text.trim();
}

/** An attribute's value, undefined when absent (xmldom answers '' for a missing attribute). */
export function attributeOf(element: Element, name: string): string | undefined {
  return element.hasAttribute(name) ? (element.getAttribute(name) ?? undefined) : undefined;
}
