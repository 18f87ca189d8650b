// The pick page's answer (issue 40): the organization a `require` client's sign-in is for, chosen among the person's
// own; the interaction then goes on as after a sign-in, for that organization.
import type { FastifyInstance } from 'fastify';
import { InteractionError } from '../../domain/authorization/authorize.js';
import { choose } from '../../domain/authorization/organization-choice.js';
import { single, type RawParams } from '../../domain/params.js';
import { seeOther } from '../redirect.js';
import { interactionKit, paramsSchema, type InteractionRoutesOptions, type Params } from './interaction-kit.js';

const pickSchema = {
  type: 'object',
  properties: { csrf: { type: 'string' }, organization: { type: 'string', maxLength: 64 } },
} as const;

export default async function organizationPickRoutes(app: FastifyInstance, opts: InteractionRoutesOptions) {
  const { ctx } = opts;
  const { interactionOf, usableSession, withPageErrors } = interactionKit(ctx);

  app.post<{ Params: Params; Body: RawParams }>(
    '/interaction/:id/organization',
    { schema: { params: paramsSchema, body: pickSchema }, config: { html: true } },
    withPageErrors(async (request, reply) => {
      const { interaction } = await interactionOf(request, request.body);
      const session = await usableSession(request, interaction);
      if (!session) throw new InteractionError('interaction.signedOut');
      const picked = single(request.body, 'organization');
      if (picked === undefined) throw new InteractionError('organization.notMember');
      await choose(ctx, interaction, session, picked);
      return seeOther(reply, `${ctx.config.issuer}/interaction/${interaction.id}`);
    }),
  );
}
