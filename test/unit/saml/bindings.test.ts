// The browser bindings' encodings (SAML Bindings 2.0 §3.4.4.1 HTTP-Redirect DEFLATE, §3.5.4 HTTP-POST base64).
import { deflateRawSync } from 'node:zlib';
import t from 'tap';
import { decodePostMessage, decodeRedirectMessage, encodePostMessage, encodeRedirectMessage } from '../../../src/domain/saml/bindings.js';
import { MAX_MESSAGE_BYTES } from '../../../src/domain/saml/xml-reader.js';

const XML = '<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_1" Version="2.0"/>';

t.test('Bindings §3.4.4.1: a Redirect message round-trips through raw DEFLATE and base64', async (t) => {
  t.equal(decodeRedirectMessage(encodeRedirectMessage(XML)), XML);
});

t.test('Bindings §3.5.4: a POST message round-trips through base64, line breaks allowed', async (t) => {
  const encoded = encodePostMessage(XML);
  t.equal(decodePostMessage(encoded.replace(/(.{40})/g, '$1\r\n')), XML);
});

t.test('a small DEFLATE bomb is refused before it inflates past the message cap', async (t) => {
  const bomb = deflateRawSync(Buffer.alloc(MAX_MESSAGE_BYTES * 4, 0x20)).toString('base64');
  t.ok(bomb.length < 10_000, 'the bomb is small on the wire');
  t.throws(() => decodeRedirectMessage(bomb), { code: 'too_large' });
});

t.test('what is not base64, DEFLATE or UTF-8 is refused with its own code', async (t) => {
  t.throws(() => decodePostMessage('%%%not base64'), { code: 'bad_encoding' });
  t.throws(() => decodeRedirectMessage(Buffer.from(XML).toString('base64')), { code: 'bad_encoding' });
  t.throws(() => decodePostMessage(Buffer.from([0x3c, 0xff, 0xfe, 0x3e]).toString('base64')), {
    code: 'bad_encoding',
  });
  t.throws(() => decodePostMessage('A'.repeat(MAX_MESSAGE_BYTES * 2)), { code: 'too_large' });
});
