// Strict application/x-www-form-urlencoded parsing for bodies and query strings, linear in the input's length.
// A repeated name is refused at its second occurrence (RFC 6749 3.1), and so is a request of more than MAX_FORM_PAIRS
// pairs; malformed percent-encoding and byte sequences that are not UTF-8 are refused instead of turned into U+FFFD,
// and so is an encoded NUL (%00), which no OAuth parameter may hold (RFC 6749 Appendix A) and PostgreSQL cannot store.
import { InvalidRequest } from '../errors/oauth-error.js';
import type { RawParams } from '../domain/params.js';

/**
 * The most name=value pairs one request may carry. The largest legitimate requests (an authorization request with
 * every OIDC parameter, the sign-in form with its device signals) have about 25; 256 leaves ten times that, while a
 * 64 KiB body of `a0&a1&…` would otherwise make some 10,000 properties for the handler to walk.
 */
export const MAX_FORM_PAIRS = 256;

/**
 * `refuse` (every endpoint but one): the second occurrence of a name ends the parse with invalid_request.
 * `collect` (the authorization endpoint, which must verify client_id and redirect_uri before it may redirect the
 * error, RFC 6749 4.1.2.1): the parse goes on and a repeated name holds its first two values, for `single()` to refuse.
 */
export type RepeatedNames = 'refuse' | 'collect';

/**
 * Names an extension allows more than once, collected (every value, within MAX_FORM_PAIRS) even in `refuse` mode:
 * RFC 8707 2 "The client MAY use the resource parameter multiple times" (src/domain/authorization/resource-request.ts).
 */
const REPEATABLE = new Set(['resource']);

export function parseForm(input: string, repeated: RepeatedNames = 'refuse'): RawParams {
  const out: RawParams = Object.create(null) as RawParams;
  let pairs = 0;
  let start = 0;
  while (start <= input.length) {
    const end = nextAmpersand(input, start);
    if (end > start) {
      // RFC 6749 3.1 forbids repeats, and a request carries few parameters: both are refused before any more work.
      if (++pairs > MAX_FORM_PAIRS) throw new InvalidRequest('the request has too many parameters');
      const pair = input.slice(start, end);
      const eq = pair.indexOf('=');
      const name = decode(eq < 0 ? pair : pair.slice(0, eq));
      const value = eq < 0 ? '' : decode(pair.slice(eq + 1));
      const previous = out[name];
      if (previous === undefined) out[name] = value;
      else if (repeated === 'refuse' && !REPEATABLE.has(name)) throw new InvalidRequest(repeatedName(name));
      else if (!Array.isArray(previous)) out[name] = [previous, value];
      else if (REPEATABLE.has(name)) previous.push(value);
    }
    start = end + 1;
  }
  return out;
}

/** Protocol names are short identifiers; any other name is the sender's own text and is not echoed back. */
function repeatedName(name: string): string {
  return /^[A-Za-z0-9_.-]{1,64}$/.test(name) ? `parameter ${name} must not be repeated` : 'a parameter must not be repeated';
}

function nextAmpersand(input: string, from: number): number {
  const at = input.indexOf('&', from);
  return at < 0 ? input.length : at;
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
