// /audit: the audit trail of admin changes (src/domain/admin/admin.ts logAdminAction writes it, from the command line
// and the API alike), newest first, filtered by actor, target, event and time, continued with an opaque cursor. An
// organization's API client (issue 40) sees the records of its organization only.
import { auditTrail, type AuditFilter } from '../../domain/admin/audit-trail.js';
import { isoTime } from '../../domain/admin/representations.js';
import { ApiProblem } from './problem.js';
import { decodeCursor, encodeCursor, DEFAULT_LIMIT, PAGE_QUERY_PROPERTIES, pageSchema, type PageQuery } from './pagination.js';
import type { AdminApi, JsonSchema } from './route.js';
import { DATE_TIME } from './schemas.js';

const RECORD: JsonSchema = {
  type: 'object',
  required: ['id', 'occurred_at', 'actor', 'origin', 'event', 'target', 'changes'],
  properties: {
    id: { type: 'string' },
    occurred_at: DATE_TIME,
    actor: {
      type: 'object',
      required: ['kind', 'id'],
      properties: {
        kind: { type: 'string', enum: ['client', 'person', 'cli', 'system'] },
        id: { type: 'string', description: 'the client_id, the user id, or the OS user name at the command line' },
      },
    },
    origin: { type: ['string', 'null'], description: 'the IP address of an API request' },
    event: { type: 'string' },
    target: { type: 'object', required: ['type', 'id'], properties: { type: { type: 'string' }, id: { type: 'string' } } },
    changes: {
      type: 'object',
      additionalProperties: true,
      description: 'the fields changed and their new values; a secret is named, never valued',
    },
    organization_id: { type: ['string', 'null'], description: 'the organization the change was in; null: the whole provider' },
  },
};

/** `kind:id`, split at the first colon (ids may hold colons: a resource server's URL). */
const PAIR = { type: 'string', pattern: '^[a-z_]+:.+$', maxLength: 2100 } as const;
const split = (pair: string): [string, string] => {
  const at = pair.indexOf(':');
  return [pair.slice(0, at), pair.slice(at + 1)];
};

type AuditQuery = PageQuery & { actor?: string; target?: string; event?: string; since?: string; until?: string };

export function auditRoutes(api: AdminApi): void {
  api.route({
    method: 'GET',
    url: '/audit',
    access: 'read',
    // An organization's API client (issue 40) reads the records of its own organization only.
    organizationScoped: true,
    operationId: 'listAuditRecords',
    summary: 'The audit trail, newest first; actor (client:ID, person:ID, cli:NAME), target (client:ID, user:ID...), event, since, until.',
    tag: 'audit',
    querystring: {
      type: 'object',
      properties: {
        ...PAGE_QUERY_PROPERTIES,
        actor: { ...PAIR, description: 'kind:id, e.g. client:ops-bot' },
        target: { ...PAIR, description: 'type:id, e.g. user:6f1c...' },
        event: { type: 'string', pattern: '^admin\\.[a-z_.]+$', maxLength: 64 },
        since: { type: 'string', format: 'date-time', description: 'inclusive' },
        until: { type: 'string', format: 'date-time', description: 'exclusive' },
      },
    },
    response: { 200: pageSchema(RECORD) },
    async handler(request, _reply, { ctx }) {
      const query = request.query as AuditQuery;
      const filter: AuditFilter = ctx.organizationScope === undefined ? {} : { organizationId: ctx.organizationScope };
      if (query.actor) [filter.actorKind, filter.actorId] = split(query.actor);
      if (query.target) [filter.targetType, filter.targetId] = split(query.target);
      if (query.event) filter.event = query.event;
      if (query.since) filter.since = new Date(query.since);
      if (query.until) filter.until = new Date(query.until);
      if (filter.since && filter.until && filter.since >= filter.until)
        throw new ApiProblem(400, 'invalid_request', 'since must be before until');
      if (query.cursor !== undefined) {
        filter.beforeId = decodeCursor('audit', query.cursor);
        if (!/^\d{1,19}$/.test(filter.beforeId)) throw new ApiProblem(400, 'invalid_cursor', 'the cursor is not one this list gave');
      }
      const limit = query.limit ?? DEFAULT_LIMIT;
      // One row more than shown tells whether a next page exists.
      const rows = await auditTrail(ctx, filter, limit + 1);
      const page = rows.slice(0, limit);
      return {
        items: page.map((r) => ({
          id: r.id,
          occurred_at: isoTime(r.occurred_at),
          actor: { kind: r.actor_kind, id: r.actor_id },
          origin: r.origin,
          event: r.event,
          target: { type: r.target_type, id: r.target_id },
          changes: r.changes,
          organization_id: r.organization_id,
        })),
        next_cursor: rows.length > limit ? encodeCursor('audit', page[page.length - 1]!.id) : null,
      };
    },
  });
}
