// The account page of the signed-in user (GET /account), and the plugins of what it offers: its own sign-in, devices
// and console sessions, the authenticator app, passkeys. Without a session the browser signs in first through the
// account's own sign-in form (account-sign-in.ts). Every form posts a CSRF token derived from the session cookie (or,
// for the sign-in form, equal to a binding cookie); only the passkey forms run script (src/http/views/passkey-script.ts).
import type { FastifyInstance } from 'fastify';
import type { MessageKey } from '../../../i18n/catalog.js';
import { seeOther } from '../../redirect.js';
import { accountKit, querySchema, type AccountRoutesOptions } from './account-kit.js';
import accountSignInRoutes from './account-sign-in.js';
import authenticatorAppRoutes from './authenticator-app.js';
import accountDeviceRoutes from './devices.js';
import accountPasskeyRoutes from './passkeys.js';

/** What the account page says after a redirect (`?done=`): a fixed list, so nothing from the URL is shown. */
const NOTICES: Record<string, MessageKey> = {
  'device-revoked': 'account.done.deviceRevoked',
  'totp-enrolled': 'account.done.totpEnrolled',
  'totp-removed': 'account.done.totpRemoved',
  'email-sent': 'account.done.emailSent',
  'signed-up': 'account.done.signedUp',
  'password-changed': 'account.done.passwordChanged',
  'passkey-added': 'account.done.passkeyAdded',
  'passkey-renamed': 'account.done.passkeyRenamed',
  'passkey-deleted': 'account.done.passkeyDeleted',
  'console-session-ended': 'account.done.consoleSessionEnded',
};

/** The notice a `?done=` names, when it is one of NOTICES. */
const noticeOf = (done: string | undefined) => (done && Object.hasOwn(NOTICES, done) ? NOTICES[done] : undefined);

export default async function accountRoutes(app: FastifyInstance, opts: AccountRoutesOptions) {
  const { signInUrl, language, signedIn, renderAccount } = accountKit(opts.ctx);

  app.get<{ Querystring: { done?: string } }>(
    '/account',
    { schema: { querystring: querySchema }, config: { html: true } },
    async (request, reply) => {
      const who = await signedIn(request);
      if (!who) return seeOther(reply, signInUrl);
      const notice = noticeOf(request.query.done);
      return renderAccount(request, reply, who, 200, notice ? { notice: language(request)(notice) } : {});
    },
  );

  await app.register(accountSignInRoutes, opts);
  await app.register(accountDeviceRoutes, opts);
  await app.register(authenticatorAppRoutes, opts);
  await app.register(accountPasskeyRoutes, opts);
}
