// The console's SCIM token pages (docs/scim.md): list, create (the token shown once, as `sso-admin scim-tokens create`
// prints it once), show, and revoke after a confirmation, through src/domain/scim/scim-tokens.ts as the API's
// /scim-tokens and the command line do, so each change is audited with the person as actor.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { consoleFormToken } from '../../domain/console/console-sessions.js';
import type { ProviderContext } from '../../domain/context.js';
import type { RawParams } from '../../domain/params.js';
import { createScimToken, listScimTokens, revokeScimToken, SCIM_TOKEN_NAME, showScimToken } from '../../domain/scim/scim-tokens.js';
import { seeOther } from '../redirect.js';
import {
  newScimTokenBody,
  revokeScimTokenBody,
  scimTokenBody,
  scimTokenListBody,
  scimTokenSecretBody,
  type NewScimTokenValues,
} from './views/scim-tokens.js';
import { attempt, field, notFound } from './console-forms.js';
import { adminContextOf, mayWrite, personOf, sendPage, textOf } from './console-http.js';

const nameParams = {
  type: 'object',
  properties: { name: { type: 'string', pattern: SCIM_TOKEN_NAME.source } },
  required: ['name'],
} as const;

/** The form's days: a whole number, or NaN, which the domain refuses with its own words. */
const daysOf = (value: string): number | undefined => (value === '' ? undefined : /^\d{1,6}$/.test(value) ? Number(value) : Number.NaN);

export function scimTokenPages(app: FastifyInstance, ctx: ProviderContext, base: string): void {
  const csrf = (request: FastifyRequest) => consoleFormToken(personOf(request).cookie);

  app.get('/scim-tokens', async (request, reply) => {
    const body = scimTokenListBody(textOf(request), base, await listScimTokens(ctx), ctx.clock(), mayWrite(request));
    return sendPage(reply, base, { title: textOf(request)('console.scimTokens.title'), section: '/scim-tokens', body }, personOf(request));
  });

  app.get('/scim-tokens/new', { config: { consoleWrite: true } }, async (request, reply) =>
    sendPage(
      reply,
      base,
      {
        title: textOf(request)('console.scimTokens.new'),
        section: '/scim-tokens',
        body: newScimTokenBody(textOf(request), base, csrf(request), { name: '', expires_in_days: '' }),
      },
      personOf(request),
    ),
  );

  app.post<{ Body: RawParams }>('/scim-tokens', async (request, reply) => {
    const values: NewScimTokenValues = { name: field(request.body, 'name'), expires_in_days: field(request.body, 'expires_in_days') };
    const days = daysOf(values.expires_in_days);
    const done = await attempt(
      () => createScimToken(adminContextOf(ctx, request), { name: values.name, ...(days === undefined ? {} : { expiresInDays: days }) }),
      (message, status) =>
        sendPage(
          reply,
          base,
          {
            status,
            title: textOf(request)('console.scimTokens.new'),
            section: '/scim-tokens',
            body: newScimTokenBody(textOf(request), base, csrf(request), values, message),
          },
          personOf(request),
        ),
    );
    if (!done.ok) return done.reply;
    return sendPage(
      reply.header('cache-control', 'no-store'),
      base,
      {
        status: 201,
        title: textOf(request)('console.scimTokens.createdTitle'),
        section: '/scim-tokens',
        body: scimTokenSecretBody(textOf(request), base, done.value.token.name, done.value.secret),
      },
      personOf(request),
    );
  });

  app.get<{ Params: { name: string } }>('/scim-tokens/:name', { schema: { params: nameParams } }, async (request, reply) => {
    const person = personOf(request);
    const found = await attempt(
      () => showScimToken(ctx, request.params.name),
      (message, status) => notFound(reply, base, person, message, status),
    );
    if (!found.ok) return found.reply;
    const body = scimTokenBody(textOf(request), base, found.value, ctx.clock(), mayWrite(request));
    return sendPage(
      reply,
      base,
      { title: textOf(request)('console.scimTokens.page', { name: found.value.name }), section: '/scim-tokens', body },
      person,
    );
  });

  app.get<{ Params: { name: string } }>(
    '/scim-tokens/:name/revoke',
    { schema: { params: nameParams }, config: { consoleWrite: true } },
    async (request, reply) => {
      const person = personOf(request);
      const found = await attempt(
        () => showScimToken(ctx, request.params.name),
        (message, status) => notFound(reply, base, person, message, status),
      );
      if (!found.ok) return found.reply;
      const body = revokeScimTokenBody(textOf(request), base, found.value.name, csrf(request));
      return sendPage(reply, base, { title: textOf(request)('console.scimTokens.revokeTitle'), section: '/scim-tokens', body }, person);
    },
  );

  app.post<{ Params: { name: string }; Body: RawParams }>(
    '/scim-tokens/:name/revoke',
    { schema: { params: nameParams } },
    async (request, reply) => {
      const person = personOf(request);
      const done = await attempt(
        () => revokeScimToken(adminContextOf(ctx, request), request.params.name),
        (message, status) => notFound(reply, base, person, message, status),
      );
      if (!done.ok) return done.reply;
      return seeOther(reply, `${base}/scim-tokens`);
    },
  );
}
