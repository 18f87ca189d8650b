// XML from a party we do not control (an IdP's metadata, a SAMLResponse), screened before any parser sees it: a size
// cap, and no DTD, entity declaration or processing instruction at all (the XXE and billion-laughs families); then
// parsed strictly, any parser warning or error refusing the document.
import { parseXml, type XmlDocument, type XmlNode } from './dom.js';
import { SamlSpError } from './saml-sp-error.js';

/** The XML declaration is the one processing instruction allowed, and only first. */
const XML_DECLARATION = /^\uFEFF?<\?xml\s[^?]*\?>/;

/** Throws SamlSpError unless `xml` is at most `maxBytes` and holds no DTD, entity or processing instruction. */
export function screenUntrustedXml(xml: string, maxBytes: number): void {
  if (Buffer.byteLength(xml, 'utf8') > maxBytes) throw new SamlSpError('too-large', `the XML is over ${maxBytes} bytes`);
  const body = xml.replace(XML_DECLARATION, '');
  if (/<!DOCTYPE/i.test(body) || /<!ENTITY/i.test(body)) throw new SamlSpError('dtd', 'the XML has a DTD or an entity declaration');
  if (body.includes('<?')) throw new SamlSpError('malformed', 'the XML has a processing instruction');
}

/** The screened document, parsed strictly. */
export function parseUntrustedDocument(xml: string, maxBytes: number): XmlDocument & { documentElement: XmlNode } {
  screenUntrustedXml(xml, maxBytes);
  const fail = (message: string): never => {
    throw new SamlSpError('malformed', `the XML does not parse: ${message.split('\n')[0]!.slice(0, 120)}`);
  };
  const doc = parseXml(xml, fail);
  if (!doc.documentElement) return fail('no document element');
  return doc as XmlDocument & { documentElement: XmlNode };
}
