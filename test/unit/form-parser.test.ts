// parseForm: strict application/x-www-form-urlencoded parsing, bounded in pairs and refusing repeated names.
import t, { type Test } from 'tap';
import { InvalidRequest } from '../../src/errors/oauth-error.js';
import { MAX_FORM_PAIRS, parseForm, type RepeatedNames } from '../../src/http/form-parser.js';

function refusal(t: Test, input: string, repeated: RepeatedNames = 'refuse'): string | undefined {
  try {
    parseForm(input, repeated);
  } catch (err) {
    t.ok(err instanceof InvalidRequest, 'refused with an InvalidRequest');
    return (err as InvalidRequest).description;
  }
  t.fail(`not refused: ${input.slice(0, 80)}`);
  return undefined;
}

const pairs = (count: number) => Array.from({ length: count }, (_, i) => `p${i}=${i}`).join('&');

t.test('RFC 6749 3.1: the second occurrence of a name is refused, naming the parameter', async (t) => {
  t.equal(refusal(t, 'grant_type=a&scope=x&grant_type=b'), 'parameter grant_type must not be repeated');
  t.equal(refusal(t, 'a&a'), 'parameter a must not be repeated', 'a name without a value counts too');
});

t.test('a repeated name that is not an identifier is refused without being echoed', async (t) => {
  t.equal(refusal(t, '%3Cscript%3E=1&%3Cscript%3E=2'), 'a parameter must not be repeated');
  t.equal(refusal(t, `${'n'.repeat(65)}&${'n'.repeat(65)}`), 'a parameter must not be repeated');
});

t.test('collect mode (authorization endpoint) keeps the first two values of a repeated name, no more', async (t) => {
  const form = parseForm('scope=a&state=s&scope=b&scope=c&scope=d', 'collect');
  t.same(form.scope, ['a', 'b']);
  t.equal(form.state, 's');
});

t.test('RFC 8707 2: resource, which a client MAY repeat, is collected whole rather than refused', async (t) => {
  const form = parseForm('grant_type=x&resource=https%3A%2F%2Fa.example&resource=https%3A%2F%2Fb.example&resource=c');
  t.same(form.resource, ['https://a.example', 'https://b.example', 'c']);
  t.equal(form.grant_type, 'x');
});

t.test(`up to ${MAX_FORM_PAIRS} pairs are accepted; one more is refused with invalid_request`, async (t) => {
  t.equal(Object.keys(parseForm(pairs(MAX_FORM_PAIRS))).length, MAX_FORM_PAIRS);
  t.equal(refusal(t, pairs(MAX_FORM_PAIRS + 1)), 'the request has too many parameters');
  t.equal(refusal(t, pairs(MAX_FORM_PAIRS + 1), 'collect'), 'the request has too many parameters');
  t.equal(refusal(t, 'a&'.repeat(MAX_FORM_PAIRS + 1), 'collect'), 'the request has too many parameters');
});

t.test('empty pairs (a&&b, a trailing &) are skipped and not counted', async (t) => {
  t.same({ ...parseForm('a=1&&b=&') }, { a: '1', b: '' });
  t.equal(Object.keys(parseForm(`${'&'.repeat(1000)}${pairs(MAX_FORM_PAIRS)}`)).length, MAX_FORM_PAIRS);
  t.same({ ...parseForm('') }, {});
});

t.test('RFC 6749 Appendix B: + is a space, percent-escapes decode as UTF-8, malformed ones and %00 are refused', async (t) => {
  t.same({ ...parseForm('x=a+b%2Bc&y=caf%C3%A9&z=a=b') }, { x: 'a b+c', y: 'café', z: 'a=b' });
  t.equal(refusal(t, 'x=%zz'), 'the request is not valid UTF-8 form-urlencoded data');
  t.equal(refusal(t, 'x=%ff'), 'the request is not valid UTF-8 form-urlencoded data');
  t.equal(refusal(t, 'x=a%00b'), 'a request parameter holds a NUL character');
});

t.test('a 64 KiB body of one repeated name or of distinct names is parsed in linear time', async (t) => {
  const started = performance.now();
  refusal(t, 'a&'.repeat(32 * 1024), 'collect');
  refusal(t, 'a&'.repeat(32 * 1024));
  refusal(t, Array.from({ length: 9000 }, (_, i) => `a${i}`).join('&'));
  const ms = performance.now() - started;
  t.ok(ms < 500, `three floods parsed in ${Math.round(ms)} ms`);
});
