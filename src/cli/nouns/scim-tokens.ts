// sso-admin scim-tokens list|show|create|revoke, over src/domain/scim/scim-tokens.ts: the fixed bearer tokens that
// Microsoft Entra ("Secret Token") and Okta ("HTTP Header") provision with over SCIM (docs/scim.md).
import { AdminError } from '../../domain/admin-error.js';
import {
  createScimToken,
  isExpired,
  listScimTokens,
  MAX_EXPIRES_IN_DAYS,
  revokeScimToken,
  scimTokenEntryProblems,
  scimTokenJson,
  showScimToken,
  type NewScimToken,
  type ScimToken,
} from '../../domain/scim/scim-tokens.js';
import { iso } from '../output.js';
import { verb, type Noun } from '../command.js';

const NAME = { name: 'name', description: 'the token\'s name: lowercase letters, digits, "-" or "_" (e.g. entra-prod)' } as const;

const state = (t: ScimToken, now: Date) => (isExpired(t, now) ? 'expired' : 'active');

export const scimTokens: Noun = {
  name: 'scim-tokens',
  summary: 'long-lived bearer tokens for SCIM provisioning (Entra, Okta)',
  verbs: [
    verb({
      name: 'list',
      summary: 'List every SCIM token: when it was made, when it expires, when it was last used.',
      async run(session, input) {
        const now = session.ctx.clock();
        const all = await listScimTokens(session.ctx);
        if (input.json) return session.out.json(all.map((t) => scimTokenJson(t, now)));
        session.out.table(
          ['name', 'state', 'created', 'expires', 'last used'],
          all.map((t) => [
            t.name,
            state(t, now),
            iso(t.createdAt),
            t.expiresAt ? iso(t.expiresAt) : 'never',
            t.lastUsedAt ? iso(t.lastUsedAt) : 'never',
          ]),
          'no SCIM tokens',
        );
      },
    }),
    verb({
      name: 'show',
      summary: 'Show one SCIM token (never its value, which is not kept).',
      args: [NAME],
      async run(session, input) {
        const now = session.ctx.clock();
        const t = await showScimToken(session.ctx, input.args.name!);
        if (input.json) return session.out.json(scimTokenJson(t, now));
        session.out.fields([
          ['name', t.name],
          ['state', state(t, now)],
          ['created', iso(t.createdAt)],
          ['expires', t.expiresAt ? iso(t.expiresAt) : 'never'],
          ['last used', t.lastUsedAt ? iso(t.lastUsedAt) : 'never'],
        ]);
      },
    }),
    verb({
      name: 'create',
      summary: 'Make a SCIM token; it is printed once, to paste into the provisioning client.',
      args: [NAME],
      options: {
        'expires-in': {
          type: 'string',
          value: 'DAYS',
          description: `it stops working after this many days (1 to ${MAX_EXPIRES_IN_DAYS}); without it, it does not expire`,
        },
      },
      notes: `Paste the token into Entra's "Secret Token" field, or Okta's "HTTP Header" authorization, with
{BASE_URL}/scim/v2 as the tenant or base URL. Only its digest is kept: copy it from the output. Neither
Entra nor Okta renews it: make the next one and revoke this one before it expires.`,
      prepare(input) {
        const days = input.options['expires-in'];
        const entry: NewScimToken = {
          name: input.args.name!,
          ...(days === undefined ? {} : { expiresInDays: /^\d{1,9}$/.test(String(days)) ? Number(days) : Number.NaN }),
        };
        const problems = scimTokenEntryProblems(entry);
        if (problems.length > 0) throw new AdminError(`SCIM token "${entry.name}" was refused: ${problems.join('; ')}`);
        return entry;
      },
      async run(session, input, entry: NewScimToken) {
        const { token, secret } = await createScimToken(session.ctx, entry);
        if (input.json) return session.out.json({ ...scimTokenJson(token, session.ctx.clock()), token: secret });
        session.out.line(`SCIM token "${token.name}" created; it expires ${token.expiresAt ? iso(token.expiresAt) : 'never'}`);
        session.out.line(`token: ${secret}`);
        session.out.line(`This is the only time the token "${token.name}" is shown: only its digest is kept.`);
      },
    }),
    verb({
      name: 'revoke',
      summary: 'Revoke a SCIM token: the next SCIM request with it, on any instance, is refused.',
      args: [NAME],
      destructive: true,
      async run(session, input) {
        const name = input.args.name!;
        await showScimToken(session.ctx, name);
        await session.confirm(`Revoke SCIM token "${name}"? Provisioning with it stops at once.`);
        await revokeScimToken(session.ctx, name);
        if (input.json) return session.out.json({ name, revoked: true });
        session.out.line(`SCIM token "${name}" revoked`);
      },
    }),
  ],
};
