// /account/passkeys: the person adds a passkey (WebAuthn registration) after a recent sign-in, renames one, and
// deletes one after a recent sign-in, unless it is their only way of signing in.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { accountFormToken, isAccountFormToken } from '../../../domain/accounts/account-forms.js';
import {
  deletePasskey,
  MAX_PASSKEYS_PER_USER,
  passkeyName,
  passkeyRegistrationOptions,
  registerPasskey,
  renamePasskey,
} from '../../../domain/accounts/passkeys.js';
import { single, type RawParams } from '../../../domain/params.js';
import { seeOther } from '../../redirect.js';
import type { PageText } from '../../views/layout.js';
import { PASSKEY_PAGE_HEADERS } from '../../views/pages.js';
import { postedCredential, sendPasskeyError, sendPasskeyOptions, UNREADABLE_PASSKEY } from '../passkey-form.js';
import { accountErrorPage, newPasskeyPage } from '../views/account-pages.js';
import {
  accountKit,
  ENROLMENT_FINISH_MAX_AUTH_AGE_SECONDS,
  ENROLMENT_START_MAX_AUTH_AGE_SECONDS,
  formSchema,
  uuidParamsSchema,
  type AccountRoutesOptions,
} from './account-kit.js';
import { BAD_FORM, type SignedIn } from './account-session.js';

const tooManyPasskeys = (t: PageText) => t('passkey.tooMany', { max: MAX_PASSKEYS_PER_USER });
const BAD_PASSKEY_NAME = 'passkey.badName';

type PasskeyExtra = { name?: string; error?: string };

// Adding one asks for a recent sign-in, as setting up an authenticator app does (the same ages); removing one too.
export default async function accountPasskeyRoutes(app: FastifyInstance, opts: AccountRoutesOptions) {
  const { ctx } = opts;
  const { base, signInUrl, page, language, signedIn, formPost, renderAccount, isRecent, recentSignIn } = accountKit(ctx);

  const passkeyPage = (reply: FastifyReply, t: PageText, status: number, who: SignedIn, extra: PasskeyExtra = {}) =>
    reply
      .code(status)
      .headers(PASSKEY_PAGE_HEADERS)
      .send(newPasskeyPage(t, { base, csrfToken: accountFormToken(who.cookie), ...extra }));

  const noSuchPasskey = (reply: FastifyReply, t: PageText) =>
    page(reply, 404, accountErrorPage(t, base, t('passkey.noSuch'), t('passkey.noSuchLead')));

  /** The name typed for a new passkey (the default name when none), or undefined when it is not one. */
  const newPasskeyName = (t: PageText, typed: string) => (typed.trim() === '' ? t('passkey.defaultName') : passkeyName(typed));

  app.post<{ Body: RawParams }>(
    '/account/passkeys/new',
    { schema: { body: formSchema }, config: { html: true } },
    async (request, reply) => {
      const who = await formPost(request, reply);
      if (!who || !recentSignIn(reply, who, ENROLMENT_START_MAX_AUTH_AGE_SECONDS, 'passkey-reauth')) return reply;
      return seeOther(reply, `${base}/passkeys/new`);
    },
  );

  app.get('/account/passkeys/new', { config: { html: true } }, async (request, reply) => {
    const who = await signedIn(request);
    if (!who) return seeOther(reply, signInUrl);
    if (!recentSignIn(reply, who, ENROLMENT_FINISH_MAX_AUTH_AGE_SECONDS, 'passkey-reauth')) return reply;
    return passkeyPage(reply, language(request), 200, who);
  });

  app.post<{ Body: RawParams }>('/account/passkeys/options', { schema: { body: formSchema } }, async (request, reply) => {
    const who = await signedIn(request);
    const t = language(request);
    if (!who) return sendPasskeyError(reply, 401, 'login_required', t('account.signedOut'));
    if (!isAccountFormToken(who.cookie, single(request.body, 'csrf'))) return sendPasskeyError(reply, 403, 'invalid_request', t(BAD_FORM));
    if (!isRecent(who, ENROLMENT_FINISH_MAX_AUTH_AGE_SECONDS)) {
      return sendPasskeyError(reply, 401, 'login_required', t('passkey.tooOld'));
    }
    const options = await passkeyRegistrationOptions(ctx, who.user, who.cookie);
    if (options.kind === 'too-many') return sendPasskeyError(reply, 409, 'invalid_request', tooManyPasskeys(t));
    return sendPasskeyOptions(reply, options.options);
  });

  /** The passkey registered, or the page again saying why not. */
  async function register(reply: FastifyReply, t: PageText, who: SignedIn, credential: unknown, name: string) {
    const registered = await registerPasskey(ctx, who.user.id, who.cookie, credential, name);
    switch (registered.kind) {
      case 'registered':
        return seeOther(reply, `${base}?done=passkey-added`);
      case 'duplicate':
        return passkeyPage(reply, t, 409, who, { name, error: t('passkey.duplicate') });
      case 'too-many':
        return passkeyPage(reply, t, 409, who, { name, error: tooManyPasskeys(t) });
      case 'refused':
        return passkeyPage(reply, t, 400, who, { name, error: t('passkey.refused') });
    }
  }

  app.post<{ Body: RawParams }>('/account/passkeys', { schema: { body: formSchema }, config: { html: true } }, async (request, reply) => {
    const who = await formPost(request, reply);
    if (!who || !recentSignIn(reply, who, ENROLMENT_FINISH_MAX_AUTH_AGE_SECONDS, 'passkey-reauth')) return reply;
    const t = language(request);
    const name = newPasskeyName(t, single(request.body, 'name') ?? '');
    if (name === undefined) return passkeyPage(reply, t, 400, who, { error: t(BAD_PASSKEY_NAME) });
    const credential = postedCredential(request.body);
    if (credential === undefined) return passkeyPage(reply, t, 400, who, { name, error: t(UNREADABLE_PASSKEY) });
    return register(reply, t, who, credential, name);
  });

  app.post<{ Params: { id: string }; Body: RawParams }>(
    '/account/passkeys/:id/rename',
    { schema: { params: uuidParamsSchema, body: formSchema }, config: { html: true } },
    async (request, reply) => {
      const who = await formPost(request, reply);
      if (!who) return reply;
      const name = passkeyName(single(request.body, 'name'));
      if (name === undefined) return renderAccount(request, reply, who, 400, { error: language(request)(BAD_PASSKEY_NAME) });
      if (!(await renamePasskey(ctx, who.user.id, request.params.id, name))) return noSuchPasskey(reply, language(request));
      return seeOther(reply, `${base}?done=passkey-renamed`);
    },
  );

  app.post<{ Params: { id: string }; Body: RawParams }>(
    '/account/passkeys/:id/delete',
    { schema: { params: uuidParamsSchema, body: formSchema }, config: { html: true } },
    async (request, reply) => {
      const who = await formPost(request, reply);
      // Removing the authenticator app asks for one of its codes; removing a passkey, a sign-in of the last minutes
      // (issue 38): a session left open on a shared computer cannot take a way of signing in away from its owner.
      if (!who || !recentSignIn(reply, who, ENROLMENT_START_MAX_AUTH_AGE_SECONDS, 'passkey-remove-reauth')) return reply;
      const deleted = await deletePasskey(ctx, who.user.id, request.params.id);
      if (deleted === 'not-found') return noSuchPasskey(reply, language(request));
      if (deleted === 'last-sign-in-method') {
        return renderAccount(request, reply, who, 409, { error: language(request)('passkey.onlyWay') });
      }
      return seeOther(reply, `${base}?done=passkey-deleted`);
    },
  );
}
