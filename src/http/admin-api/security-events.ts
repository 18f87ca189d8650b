// /security-events: the stored security events (sign-ins allowed, challenged, blocked, devices...), newest first,
// with the filters and cursor of GET /sso/security-events (src/domain/risk/security-event-query.ts).
import type { RawParams } from '../../domain/params.js';
import { listSecurityEvents, MAX_EVENTS_LIMIT, parseEventQuery } from '../../domain/risk/security-event-query.js';
import type { AdminApi, JsonSchema } from './route.js';
import { DATE_TIME } from './schemas.js';

const EVENT: JsonSchema = {
  type: 'object',
  required: ['id', 'type', 'created_at', 'user_id', 'username', 'device_id', 'client_id', 'details'],
  properties: {
    id: { type: 'string' },
    type: { type: 'string' },
    created_at: DATE_TIME,
    user_id: { type: ['string', 'null'] },
    username: { type: ['string', 'null'] },
    device_id: { type: ['string', 'null'] },
    client_id: { type: ['string', 'null'] },
    details: { type: 'object', additionalProperties: true },
  },
};

const text = (description: string) => ({ type: 'string', maxLength: 512, description }) as const;

export function securityEventRoutes(api: AdminApi): void {
  api.route({
    method: 'GET',
    url: '/security-events',
    access: 'read',
    operationId: 'listSecurityEvents',
    summary: 'The security events, newest first; filters by user, type and time.',
    tag: 'security-events',
    querystring: {
      type: 'object',
      properties: {
        user: text('a user id or username'),
        type: text('an event type such as sign_in_blocked'),
        since: text('RFC 3339 date-time, inclusive'),
        until: text('RFC 3339 date-time, exclusive'),
        limit: { type: 'string', pattern: '^[0-9]{1,4}$', description: `at most this many events (1 to ${MAX_EVENTS_LIMIT})` },
        cursor: text('next_cursor of the previous page'),
      },
    },
    response: {
      200: {
        type: 'object',
        required: ['items', 'next_cursor'],
        properties: { items: { type: 'array', items: EVENT }, next_cursor: { type: ['string', 'null'] } },
      },
    },
    async handler(request) {
      const page = await listSecurityEvents(api.ctx, parseEventQuery(request.query as RawParams));
      return { items: page.events, next_cursor: page.next_cursor };
    },
  });
}
