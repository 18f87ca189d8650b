// Who is signed in on an account page, and a form post from one: shared by the account pages
// (account-kit.ts, password.ts, email.ts, connections.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isAccountFormToken } from '../../../domain/accounts/account-forms.js';
import { resolveSession, type ActiveSession } from '../../../domain/accounts/sessions.js';
import { findUser, type User } from '../../../domain/accounts/users.js';
import type { ProviderContext } from '../../../domain/context.js';
import { single, type RawParams } from '../../../domain/params.js';
import { sessionCookie } from '../../cookies.js';
import { seeOther } from '../../redirect.js';
import { pageLanguage } from '../../page-language.js';
import { accountErrorPage } from '../views/account-pages.js';
import { PAGE_HEADERS } from '../../views/layout.js';

export interface SignedIn {
  session: ActiveSession;
  /** The session cookie's value, from which the forms' CSRF token is derived. */
  cookie: string;
  user: User;
}

/** Said when a form did not come from this site's page (its token is not this browser's). */
export const BAD_FORM = 'account.badForm';

export interface AccountSession {
  /** The browser's live session and its user; undefined when there is none. */
  signedIn(request: FastifyRequest): Promise<SignedIn | undefined>;
  /** A form post from the account page: signed in, with the token of this session; else answered here (undefined). */
  formPost(request: FastifyRequest<{ Body: RawParams }>, reply: FastifyReply): Promise<SignedIn | undefined>;
}

export function accountSession(ctx: ProviderContext): AccountSession {
  const base = `${ctx.config.issuer}/account`;
  async function signedIn(request: FastifyRequest): Promise<SignedIn | undefined> {
    const cookie = request.cookies[sessionCookie(ctx.config).name];
    const session = await resolveSession(ctx, cookie);
    if (!session || !cookie) return undefined;
    const user = await findUser(ctx, session.userId);
    return user && { session, cookie, user };
  }
  return {
    signedIn,
    async formPost(request, reply) {
      const who = await signedIn(request);
      if (!who) {
        seeOther(reply, `${base}/sign-in`);
        return undefined;
      }
      if (!isAccountFormToken(who.cookie, single(request.body, 'csrf'))) {
        const t = pageLanguage(request, ctx.config);
        reply
          .code(403)
          .headers(PAGE_HEADERS)
          .send(accountErrorPage(t, base, t('common.somethingWrong'), t(BAD_FORM)));
        return undefined;
      }
      return who;
    },
  };
}
