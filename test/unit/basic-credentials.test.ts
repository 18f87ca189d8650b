// decodeBasicCredentials: the client id and secret of an RFC 6749 2.3.1 / RFC 7617 Basic header.
import t, { type Test } from 'tap';
import { decodeBasicCredentials } from '../../src/domain/clients/clients.js';
import { InvalidRequest } from '../../src/errors/oauth-error.js';

const basic = (raw: string) => `Basic ${Buffer.from(raw, 'utf8').toString('base64')}`;

function refuses(t: Test, header: string, why: string): void {
  let thrown: unknown;
  try {
    decodeBasicCredentials(header);
  } catch (err) {
    thrown = err;
  }
  t.ok(thrown instanceof InvalidRequest, `${why}: refused with an InvalidRequest`);
  t.match(thrown, { error: 'invalid_request', status: 400 }, why);
}

t.test('RFC 6749 2.3.1: each half is form-url-decoded, so %3A, %25, %2B and + come back as ":", "%", "+" and a space', async (t) => {
  t.same(decodeBasicCredentials(basic('my%20app:s%3Acr%2Bt+with%25')), { clientId: 'my app', secret: 's:cr+t with%' });
});

t.test('RFC 7617 2: the credentials split at the first colon; later colons belong to the secret', async (t) => {
  t.same(decodeBasicCredentials(basic('app:a:b:c')), { clientId: 'app', secret: 'a:b:c' });
});

t.test('RFC 6749 2.3.1: UTF-8 percent-encoded characters are decoded', async (t) => {
  t.same(decodeBasicCredentials(basic('caf%C3%A9:p%C3%A4ss')), { clientId: 'café', secret: 'päss' });
});

t.test('RFC 7235 2.1: the scheme name is case-insensitive and surrounding whitespace is ignored', async (t) => {
  const token = Buffer.from('app:secret').toString('base64');
  t.same(decodeBasicCredentials(`basic ${token}`), { clientId: 'app', secret: 'secret' });
  t.same(decodeBasicCredentials(`  BASIC ${token}  `), { clientId: 'app', secret: 'secret' });
});

t.test('RFC 7617 2: an empty secret decodes to the empty string', async (t) => {
  t.same(decodeBasicCredentials(basic('app:')), { clientId: 'app', secret: '' });
});

t.test('RFC 4648 4: a value that is not strict base64 is refused with invalid_request', async (t) => {
  refuses(t, 'Basic !!!not-base64!!!', 'characters outside the base64 alphabet');
  refuses(t, 'Basic YXBwOnNlY3JldA', 'missing padding (length not a multiple of 4)');
  refuses(t, 'Basic YXBw_nNlY3JldA==', 'base64url alphabet');
  refuses(t, 'Basic YXBwOnNl Y3JldA==', 'embedded whitespace');
  refuses(t, 'Basic ', 'nothing after the scheme');
});

t.test('RFC 7617 2: credentials without a colon are refused with invalid_request', async (t) => {
  refuses(t, basic('app-without-secret'), 'no colon');
});

t.test('RFC 6749 2.3.1: an empty client id is refused with invalid_request', async (t) => {
  refuses(t, basic(':secret'), 'empty client id');
});

t.test('RFC 6749 Appendix B: malformed percent-encoding is refused with invalid_request, not thrown as URIError', async (t) => {
  refuses(t, basic('app:%zz'), 'bad escape in the secret');
  refuses(t, basic('%E0%A4%A:secret'), 'truncated UTF-8 sequence in the client id');
  refuses(t, basic('app:%ff'), 'a byte that is not UTF-8');
});

t.test('RFC 7617 2.1 (UTF-8) and RFC 6749 2.3.1: bytes that are not UTF-8 are refused, as a form body refuses them', async (t) => {
  const raw = (bytes: number[]) => `Basic ${Buffer.from(bytes).toString('base64')}`;
  const app = [...Buffer.from('app:')];
  refuses(t, raw([...app, 0xff, 0x61]), 'a lone 0xFF byte in the secret');
  refuses(t, raw([0x61, 0xc3, 0x3a, 0x73]), 'a truncated two-byte sequence in the client id');
  refuses(t, raw([...app, 0xed, 0xa0, 0x80]), 'an encoded UTF-16 surrogate');
  refuses(t, raw([...app, 0xc0, 0xaf]), 'an overlong encoding');
  t.same(decodeBasicCredentials(raw([...app, 0xc3, 0xa4])), { clientId: 'app', secret: 'ä' }, 'raw UTF-8 itself is fine');
});

t.test('RFC 6749 Appendix A: a NUL in either half is refused, raw or percent-encoded, as a form body refuses it', async (t) => {
  refuses(t, basic('app:se%00cret'), 'an encoded NUL in the secret');
  refuses(t, basic('a\u0000pp:secret'), 'a raw NUL in the client id');
});
