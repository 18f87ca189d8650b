// The scripted browsers' cookie jar (test/helpers/cookie-jar.ts) keeps cookies as RFC 6265 says, so that a SAML flow
// across loopback servers behaves as in a browser: a wrong jar would let a test pass that a browser would fail.
import t from 'tap';
import { CookieJar } from '../helpers/cookie-jar.js';

const answer = (...cookies: string[]) => {
  const headers = new Headers();
  for (const cookie of cookies) headers.append('set-cookie', cookie);
  return new Response(null, { headers });
};

t.test('cookies belong to the host, not the port (RFC 6265 8.5), and a new value replaces the old', async (t) => {
  const jar = new CookieJar();
  jar.store('http://127.0.0.1:8081/mellon/login', answer('mellon-cookie=one; Path=/'));
  t.equal(jar.header('http://127.0.0.1:9090/anything'), 'mellon-cookie=one', 'another port of the same host gets it');
  t.equal(jar.header('http://localhost:8081/'), '', 'another host does not');
  jar.store('http://127.0.0.1:8081/', answer('mellon-cookie=two; Path=/'));
  t.equal(jar.header('http://127.0.0.1:8081/'), 'mellon-cookie=two');
});

t.test('Path limits a cookie, and one without Path gets the directory of the request (RFC 6265 5.1.4)', async (t) => {
  const jar = new CookieJar();
  jar.store('http://127.0.0.1/app/login', answer('a=1', 'b=2; Path=/app/inner'));
  t.equal(jar.header('http://127.0.0.1/app'), 'a=1');
  t.equal(jar.header('http://127.0.0.1/application'), '', 'a path-match ends at a slash');
  t.equal(jar.header('http://127.0.0.1/app/inner/page'), 'b=2; a=1', 'longer paths first (RFC 6265 5.4)');
});

t.test('Max-Age 0 or a past Expires removes a cookie, and Max-Age wins over Expires (RFC 6265 5.3)', async (t) => {
  const jar = new CookieJar();
  jar.store('http://127.0.0.1/', answer('gone=1', 'kept=1', 'late=1'));
  jar.store(
    'http://127.0.0.1/',
    answer('gone=; Max-Age=0', 'kept=2; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=60', 'late=; Expires=Thu, 01 Jan 1970 00:00:00 GMT'),
  );
  t.same(jar.names('http://127.0.0.1/'), ['kept']);
});

t.test('a Secure cookie goes only over https, and a Domain of another site is refused', async (t) => {
  const jar = new CookieJar();
  jar.store('https://sp.example.test/', answer('s=1; Secure', 'evil=1; Domain=other.test', 'wide=1; Domain=example.test'));
  t.equal(jar.header('http://sp.example.test/'), 'wide=1');
  t.equal(jar.header('https://sp.example.test/'), 's=1; wide=1');
  t.equal(jar.header('https://idp.example.test/'), 'wide=1', 'a Domain cookie reaches the sibling host');
  t.equal(jar.header('https://other.test/'), '');
});
