// /risk-rules: the admin risk rules that allow or block a sign-in outright (src/domain/risk/rule-admin.ts, as
// `sso-admin rules`). A rule is its kind and value; adding one that exists changes its effect and note.
import { ruleJson } from '../../domain/admin/representations.js';
import { AdminError } from '../../domain/admin-error.js';
import { addRule, deleteRule, listRulePage, showRule, type StoredRiskRule } from '../../domain/risk/rule-admin.js';
import { MAX_RULE_NOTE_LENGTH, parseRiskRule, RULE_EFFECTS, RULE_KINDS } from '../../domain/risk/rules.js';
import { changeIfMatch, IF_MATCH_HEADERS, sendWithEtag, type IfMatchGuard } from './etag.js';
import { PAGE_QUERY_PROPERTIES, pageSchema, readPage, UUID_KEY, type PageQuery } from './pagination.js';
import type { AdminApi, JsonSchema } from './route.js';
import { DATE_TIME } from './schemas.js';

const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const PARAMS = { type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: UUID_PATTERN } } } as const;
type RuleParams = { id: string };

const RULE: JsonSchema = {
  type: 'object',
  required: ['id', 'kind', 'value', 'effect', 'note', 'created_at'],
  properties: {
    id: { type: 'string' },
    kind: { type: 'string', enum: [...RULE_KINDS] },
    value: { type: 'string' },
    effect: { type: 'string', enum: [...RULE_EFFECTS] },
    note: { type: ['string', 'null'] },
    created_at: DATE_TIME,
  },
};

export function ruleRoutes(api: AdminApi): void {
  api.route({
    method: 'GET',
    url: '/risk-rules',
    access: 'read',
    operationId: 'listRiskRules',
    summary: 'List the risk rules; kind and effect filter.',
    tag: 'risk-rules',
    querystring: {
      type: 'object',
      properties: {
        ...PAGE_QUERY_PROPERTIES,
        kind: { type: 'string', enum: [...RULE_KINDS] },
        effect: { type: 'string', enum: [...RULE_EFFECTS] },
      },
    },
    response: { 200: pageSchema(RULE) },
    async handler(request, _reply, { ctx }) {
      const query = request.query as PageQuery & { kind?: string; effect?: string };
      const filter = { kind: query.kind, effect: query.effect };
      const page = await readPage(
        'risk-rules',
        query,
        (after, limit) => listRulePage(ctx, filter, after, limit),
        (r) => r.id,
        UUID_KEY,
      );
      return { items: page.items.map(ruleJson), next_cursor: page.next_cursor };
    },
  });

  api.route({
    method: 'GET',
    url: '/risk-rules/:id',
    access: 'read',
    operationId: 'getRiskRule',
    summary: 'One risk rule, with its ETag.',
    tag: 'risk-rules',
    params: PARAMS,
    response: { 200: RULE },
    async handler(request, reply, { ctx }) {
      return sendWithEtag(reply, ruleJson(await showRule(ctx, (request.params as RuleParams).id)));
    },
  });

  api.route({
    method: 'POST',
    url: '/risk-rules',
    access: 'write',
    operationId: 'addRiskRule',
    summary: 'Add a rule (201), or change the effect and note of the rule with that kind and value (200).',
    tag: 'risk-rules',
    body: {
      type: 'object',
      required: ['kind', 'value', 'effect'],
      properties: {
        kind: { type: 'string', enum: [...RULE_KINDS] },
        value: { type: 'string', minLength: 1, maxLength: 512 },
        effect: { type: 'string', enum: [...RULE_EFFECTS] },
        note: { type: ['string', 'null'], maxLength: MAX_RULE_NOTE_LENGTH },
      },
      additionalProperties: false,
    },
    response: { 200: RULE, 201: RULE },
    async handler(request, reply, { ctx }) {
      const parsed = parseRiskRule(request.body as Record<string, unknown>);
      if ('problems' in parsed) throw new AdminError(`the rule was refused: ${parsed.problems.join('; ')}`);
      const { rule, created } = await addRule(ctx, parsed.rule);
      if (created) reply.header('location', `${api.prefix}/risk-rules/${rule.id}`);
      return sendWithEtag(reply, ruleJson(rule), created ? 201 : 200);
    },
  });

  api.route({
    method: 'DELETE',
    url: '/risk-rules/:id',
    access: 'write',
    operationId: 'deleteRiskRule',
    summary: 'Delete a rule; If-Match with its ETag is required.',
    tag: 'risk-rules',
    params: PARAMS,
    headers: IF_MATCH_HEADERS,
    response: { 200: RULE },
    async handler(request, _reply, { ctx }) {
      const { id } = request.params as RuleParams;
      const guard: IfMatchGuard<StoredRiskRule> = {
        read: (c) => showRule(c, id),
        lock: (r) => ({ type: 'risk_rule', id: r.id }),
        tagged: ruleJson,
      };
      return ruleJson(await changeIfMatch(request, ctx, guard, (tctx) => deleteRule(tctx, id)));
    },
  });
}
