// A SAMLRequest read from either browser binding with its RelayState (SAML Bindings 2.0 §3.4.4, §3.5.4), one reader
// for the IdP's SSO and SLO endpoints (src/domain/saml/idp/incoming-message.ts).
import t from 'tap';
import { encodePostMessage, encodeRedirectMessage, MAX_RELAY_STATE_BYTES } from '../../../src/domain/saml/bindings.js';
import { readIncomingRequest } from '../../../src/domain/saml/idp/incoming-message.js';

const XML = '<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_1" Version="2.0"/>';
const redirectQuery = (relayState?: string) =>
  `SAMLRequest=${encodeURIComponent(encodeRedirectMessage(XML))}${relayState === undefined ? '' : `&RelayState=${encodeURIComponent(relayState)}`}`;

t.test('Bindings §3.4.4.1: over HTTP-Redirect the message is inflated and the raw parameters kept for the signature', async (t) => {
  const read = readIncomingRequest({ binding: 'redirect', rawQuery: redirectQuery('back-to/page 1') });
  t.equal(read.xml, XML);
  t.equal(read.relayState, 'back-to/page 1');
  t.equal(read.params?.get('RelayState')?.raw, 'back-to%2Fpage%201', 'the octets as they arrived');
});

t.test('Bindings §3.5.4: over HTTP-POST the message is the base64 of the XML, and no query parameters are kept', async (t) => {
  const read = readIncomingRequest({ binding: 'post', SAMLRequest: encodePostMessage(XML), RelayState: 'r' });
  t.same(read, { xml: XML, relayState: 'r', params: undefined });
  t.equal(readIncomingRequest({ binding: 'post', SAMLRequest: encodePostMessage(XML) }).relayState, undefined);
});

t.test('a Redirect query without a SAMLRequest is refused', async (t) => {
  t.throws(() => readIncomingRequest({ binding: 'redirect', rawQuery: 'RelayState=x' }), { code: 'bad_message' });
});

t.test('Bindings §3.4.3 / §3.5.3: a RelayState over 80 bytes is refused over both bindings, counted in UTF-8 bytes', async (t) => {
  t.equal(MAX_RELAY_STATE_BYTES, 80);
  const fits = 'a'.repeat(80);
  const over = 'a'.repeat(81);
  // 40 two-byte characters are 80 bytes; one more is 82.
  const multibyte = 'é'.repeat(41);
  t.equal(readIncomingRequest({ binding: 'redirect', rawQuery: redirectQuery(fits) }).relayState, fits);
  t.equal(
    readIncomingRequest({ binding: 'post', SAMLRequest: encodePostMessage(XML), RelayState: 'é'.repeat(40) }).relayState,
    'é'.repeat(40),
  );
  for (const relayState of [over, multibyte]) {
    t.throws(() => readIncomingRequest({ binding: 'redirect', rawQuery: redirectQuery(relayState) }), {
      code: 'bad_message',
      description: 'the RelayState is over 80 bytes',
    });
    t.throws(() => readIncomingRequest({ binding: 'post', SAMLRequest: encodePostMessage(XML), RelayState: relayState }), {
      code: 'bad_message',
    });
  }
});
