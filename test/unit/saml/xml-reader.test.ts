// The one reader of XML from outside (src/domain/saml/xml-reader.ts): caps, no DTD, no repair, text across comments.
import t from 'tap';
import { SamlError } from '../../../src/domain/saml/saml-error.js';
import { childElements, onlyChild, parseUntrustedXml, textOf } from '../../../src/domain/saml/xml-reader.js';

const SAML_ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';

function refusal(xml: string, max = 10_000): string | undefined {
  try {
    parseUntrustedXml(xml, max);
    return undefined;
  } catch (error) {
    return error instanceof SamlError ? error.code : `not a SamlError: ${String(error)}`;
  }
}

t.test('a message over the cap is refused before it is parsed, counted in UTF-8 bytes', async (t) => {
  t.equal(refusal('<a>' + 'é'.repeat(10) + '</a>', 25), 'too_large');
  t.equal(refusal('<a>' + 'e'.repeat(10) + '</a>', 25), undefined);
});

t.test('no document type declaration or entity is ever parsed (XXE, billion laughs), whatever its case', async (t) => {
  t.equal(refusal('<!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>'), 'forbidden_markup');
  t.equal(refusal('<?xml version="1.0"?>\n<!doctype a><a/>'), 'forbidden_markup');
  t.equal(refusal('<a><!ENTITY x "y"></a>'), 'forbidden_markup');
});

t.test('no processing instruction but the XML declaration at the start', async (t) => {
  t.equal(refusal('<?xml version="1.0" encoding="UTF-8"?><a/>'), undefined);
  t.equal(refusal('<?xml-stylesheet href="x"?><a/>'), 'forbidden_markup');
  t.equal(refusal('<a><?php echo 1 ?></a>'), 'forbidden_markup');
  t.equal(refusal('<a/><?xml version="1.0"?>'), 'forbidden_markup');
});

t.test('XML the parser would have to repair is refused, not guessed at', async (t) => {
  t.equal(refusal('<a><b></a>'), 'malformed_xml');
  t.equal(refusal('<a/><b/>'), 'malformed_xml', 'two root elements (CVE-2022-39353)');
  t.equal(refusal('<a x="1" x="2"/>'), 'malformed_xml', 'a repeated attribute');
  t.equal(refusal('not xml'), 'malformed_xml');
  t.equal(refusal(''), 'malformed_xml');
});

t.test('text is read across comments, as canonicalisation without comments signed it', async (t) => {
  const doc = parseUntrustedXml(`<saml:NameID xmlns:saml="${SAML_ASSERTION}">user@evil.test<!---->.example.org</saml:NameID>`, 10_000);
  t.equal(textOf(doc.documentElement), 'user@evil.test.example.org');
});

t.test('children are matched by namespace and local name, not by prefix', async (t) => {
  const doc = parseUntrustedXml(
    `<r xmlns:a="${SAML_ASSERTION}" xmlns:b="urn:other"><a:Issuer>one</a:Issuer><b:Issuer>two</b:Issuer></r>`,
    10_000,
  );
  t.same(childElements(doc.documentElement, SAML_ASSERTION, 'Issuer').map(textOf), ['one']);
  const twice = parseUntrustedXml(`<r xmlns="${SAML_ASSERTION}"><Issuer>1</Issuer><Issuer>2</Issuer></r>`, 10_000);
  t.throws(() => onlyChild(twice.documentElement, SAML_ASSERTION, 'Issuer'), { code: 'bad_message' });
});
