// Strict application/x-www-form-urlencoded parsing for bodies and query strings.
// A repeated name becomes an array (so that handlers can refuse it, RFC 6749 3.1); malformed
// percent-encoding and byte sequences that are not UTF-8 are refused instead of turned into U+FFFD, and so is
// an encoded NUL (%00), which no OAuth parameter may hold (RFC 6749 Appendix A) and PostgreSQL cannot store.
import { InvalidRequest } from '../errors/oauth-error.js';
import type { RawParams } from '../domain/params.js';

export function parseForm(input: string): RawParams {
  const out: RawParams = Object.create(null) as RawParams;
  if (input === '') return out;
  for (const pair of input.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : decode(pair.slice(eq + 1));
    const previous = out[name];
    if (previous === undefined) out[name] = value;
    else out[name] = Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  return out;
}

function decode(component: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(component.replace(/\+/g, ' '));
  } catch {
    throw new InvalidRequest('the request is not valid UTF-8 form-urlencoded data');
  }
  if (decoded.includes('\u0000')) throw new InvalidRequest('a request parameter holds a NUL character');
  return decoded;
}
