// /signing-keys: the keys that sign ID tokens, with their state (src/domain/keys/key-admin.ts, as `sso-admin keys`),
// and their rotation: a new key per algorithm, published at once, signing after the activation delay.
import { isoTime, keyJson } from '../../domain/admin/representations.js';
import { listKeys, rotateKeys } from '../../domain/keys/key-admin.js';
import { SIGNING_ALGS, type SigningAlg } from '../../domain/keys/signing-algs.js';
import { PAGE_QUERY_PROPERTIES, pageOf, pageSchema, type PageQuery } from './pagination.js';
import type { AdminApi, JsonSchema } from './route.js';
import { DATE_TIME, NULLABLE_DATE_TIME } from './schemas.js';

const KEY: JsonSchema = {
  type: 'object',
  required: ['kid', 'alg', 'state', 'created_at', 'activates_at', 'retires_at', 'leaves_jwks_at', 'encrypted'],
  properties: {
    kid: { type: 'string' },
    alg: { type: 'string' },
    state: { type: 'string' },
    created_at: DATE_TIME,
    activates_at: DATE_TIME,
    retires_at: NULLABLE_DATE_TIME,
    leaves_jwks_at: NULLABLE_DATE_TIME,
    encrypted: { type: 'boolean' },
  },
};

export function signingKeyRoutes(api: AdminApi): void {
  api.route({
    method: 'GET',
    url: '/signing-keys',
    access: 'read',
    operationId: 'listSigningKeys',
    summary: 'Every signing key with its state (pending, active, retired, expired) and times; alg and state filter.',
    tag: 'signing-keys',
    querystring: {
      type: 'object',
      properties: { ...PAGE_QUERY_PROPERTIES, alg: { type: 'string', enum: [...SIGNING_ALGS] }, state: { type: 'string', maxLength: 16 } },
    },
    response: { 200: pageSchema(KEY) },
    async handler(request, _reply, { ctx }) {
      const query = request.query as PageQuery & { alg?: string; state?: string };
      const all = (await listKeys(ctx)).filter(
        (k) => (query.alg === undefined || k.alg === query.alg) && (query.state === undefined || k.state === query.state),
      );
      const page = pageOf('signing-keys', all, (k) => k.kid, query);
      return {
        items: page.items.map(keyJson),
        next_cursor: page.next_cursor,
      };
    },
  });

  api.route({
    method: 'POST',
    url: '/signing-keys/rotate',
    access: 'write',
    operationId: 'rotateSigningKeys',
    summary: 'Add a new key for each algorithm (or those named): published now, signing after the delay.',
    tag: 'signing-keys',
    body: {
      type: 'object',
      properties: {
        algs: { type: 'array', items: { type: 'string', enum: [...SIGNING_ALGS] }, minItems: 1, uniqueItems: true },
        activation_delay_seconds: {
          type: 'integer',
          minimum: 0,
          maximum: 30 * 86_400,
          description: 'KEY_ACTIVATION_DELAY_SECONDS when absent',
        },
      },
      additionalProperties: false,
    },
    response: {
      200: {
        type: 'object',
        required: ['rotated', 'warnings'],
        properties: {
          rotated: {
            type: 'array',
            items: { type: 'object', properties: { kid: { type: 'string' }, alg: { type: 'string' }, activates_at: DATE_TIME } },
          },
          warnings: { type: 'array', items: { type: 'string' } },
        },
      },
    },
    async handler(request, _reply, { ctx }) {
      const body = (request.body ?? {}) as { algs?: SigningAlg[]; activation_delay_seconds?: number };
      const rotation = await rotateKeys(ctx, body.algs ?? SIGNING_ALGS, body.activation_delay_seconds);
      return {
        rotated: rotation.rotated.map((k) => ({ kid: k.kid, alg: k.alg, activates_at: isoTime(k.activatesAt) })),
        warnings: rotation.warnings,
      };
    },
  });
}
