// The CSRF token of the account page's forms: a digest of the session cookie (as for the logout confirmation),
// so it is worthless without that cookie, needs no storage, and changes with every sign-in.
import { createHash } from 'node:crypto';
import { safeEqual } from '../secrets.js';

export function accountFormToken(sessionCookie: string): string {
  return createHash('sha256').update('account-form\0').update(sessionCookie).digest('base64url');
}

export function isAccountFormToken(sessionCookie: string, presented: string | undefined): boolean {
  return presented !== undefined && safeEqual(presented, accountFormToken(sessionCookie));
}
