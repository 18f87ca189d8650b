// Where a sign-in or a sign-up with no application goes back to when an organization's invitation waits for it: the
// link that set the cookie (src/http/pages/invitation.ts), read by the account sign-in and the sign-up's end.
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { invitationPendingCookie } from '../cookies.js';

/** The invitation's link the browser came from, or undefined; a cookie that is not a token's shape is ignored. */
export function pendingInvitationUrl(config: Config, request: FastifyRequest): string | undefined {
  const token = request.cookies[invitationPendingCookie(config).name];
  return token && /^[A-Za-z0-9_-]{43}$/.test(token) ? `${config.issuer}/invitations/${token}` : undefined;
}
