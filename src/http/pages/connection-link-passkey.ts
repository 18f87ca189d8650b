// POST /connections/link/passkey/options and /connections/link/passkey?proof=...: the local account proved with one of
// its passkeys instead of its password (src/domain/connections/link-proof-passkey.ts); the proof is the form's CSRF field.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { MAX_PASSKEY_RESPONSE_LENGTH } from '../../domain/accounts/passkey-ceremony.js';
import { linkProofPasskeyOptions, proveWithPasskey } from '../../domain/connections/link-proof-passkey.js';
import { UpstreamRefusal } from '../../domain/connections/upstream-errors.js';
import type { ProviderContext } from '../../domain/context.js';
import { single, type RawParams } from '../../domain/params.js';
import { safeEqual } from '../../domain/secrets.js';
import { connectionLinkKit, querySchema, type LinkRequest } from './connection-link-kit.js';
import { PASSKEY_REFUSED, postedCredential, sendPasskeyError, sendPasskeyOptions, UNREADABLE_PASSKEY } from './passkey-form.js';
import { languageOf } from './upstream-pages.js';

const passkeyFormSchema = {
  type: 'object',
  properties: { csrf: { type: 'string', maxLength: 64 }, credential: { type: 'string', maxLength: MAX_PASSKEY_RESPONSE_LENGTH } },
} as const;

/** Whether the form's CSRF field is this request's proof (the page's own form). */
const isProofForm = (request: LinkRequest) => {
  const csrf = single(request.body ?? {}, 'csrf');
  return Boolean(csrf && safeEqual(csrf, request.query.proof));
};

export default async function connectionLinkPasskeyRoutes(app: FastifyInstance, opts: { ctx: ProviderContext }) {
  const { ctx } = opts;
  const { proofOf, proofContext, page, withRefusals, shown, link } = connectionLinkKit(ctx);

  /** The passkey options of the proof's user, or the refusal the page's script shows. */
  async function optionsFor(request: LinkRequest, reply: FastifyReply) {
    try {
      const { user } = await proofOf(request);
      return sendPasskeyOptions(reply, await linkProofPasskeyOptions(ctx, request.query.proof, user.id));
    } catch (err) {
      if (err instanceof UpstreamRefusal)
        return sendPasskeyError(reply, 400, 'invalid_request', languageOf(ctx, request, undefined)('connections.badState'));
      throw err;
    }
  }

  app.post<{ Querystring: { proof: string }; Body: RawParams }>(
    '/connections/link/passkey/options',
    { schema: { querystring: querySchema, body: passkeyFormSchema } },
    async (request, reply) => {
      if (!isProofForm(request))
        return sendPasskeyError(reply, 403, 'invalid_request', languageOf(ctx, request, undefined)('secondFactor.foreignForm'));
      return optionsFor(request, reply);
    },
  );

  app.post<{ Querystring: { proof: string }; Body: RawParams }>(
    '/connections/link/passkey',
    { schema: { querystring: querySchema, body: passkeyFormSchema }, config: { html: true } },
    withRefusals(async (request, reply, t0) => {
      const { connection, user, proof, facts, t } = await proofContext(request, t0);
      if (!isProofForm(request)) throw new UpstreamRefusal('bad-state', "the passkey form is not this proof's");
      const again = async (status: number, message: string) =>
        page(reply, t, status, await shown(request.query.proof, connection, user), message);
      const credential = postedCredential(request.body ?? {});
      if (credential === undefined) return again(400, t(UNREADABLE_PASSKEY));
      const check = await proveWithPasskey(ctx, { proof: request.query.proof, userId: user.id, credential, ip: request.ip });
      if (check.kind === 'throttled') {
        reply.header('retry-after', String(check.retryAfterSeconds));
        return again(429, t('common.tooManyAttempts.other', { count: check.retryAfterSeconds }));
      }
      if (check.kind === 'malformed') return again(400, t(UNREADABLE_PASSKEY));
      if (check.kind === 'refused') return again(401, t(PASSKEY_REFUSED));
      return link(request, reply, proof, connection, user, facts, check.amr);
    }),
  );
}
