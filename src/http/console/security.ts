// The console's security pages (issue 20): risk rules (add, delete), security events with filters, signing keys
// (list, rotate) and the audit log with filters; thin layers over the functions the management API calls.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { consoleFormToken } from '../../domain/console/console-sessions.js';
import type { ProviderContext } from '../../domain/context.js';
import { listKeys, rotateKeys } from '../../domain/keys/key-admin.js';
import { SIGNING_ALGS } from '../../domain/keys/signing-algs.js';
import { parseRfc3339, listSecurityEvents, parseEventQuery } from '../../domain/risk/security-event-query.js';
import { addRule, deleteRule, listRules } from '../../domain/risk/rule-admin.js';
import { parseRiskRule } from '../../domain/risk/rules.js';
import type { RawParams } from '../../domain/params.js';
import { OAuthError } from '../../errors/oauth-error.js';
import { auditTrail, type AuditFilter } from '../../domain/admin/audit-trail.js';
import { seeOther } from '../redirect.js';
import { auditBody, eventsBody, keysBody, rulesBody, type AuditFilters, type EventFilters } from './views/security.js';
import { adminContextOf, mayWrite, personOf, sendPage, textOf } from './console-http.js';
import { attempt, field, noticeOf } from './console-forms.js';

const AUDIT_PAGE = 50;
const text = { type: 'string', maxLength: 256 } as const;
const eventsQuery = { type: 'object', properties: { user: text, type: text, since: text, until: text, cursor: text } } as const;
const auditQuery = {
  type: 'object',
  properties: { actor: text, target: text, event: text, since: text, until: text, before: { type: 'string', pattern: '^[0-9]{1,19}$' } },
} as const;
const ruleParams = { type: 'object', properties: { id: { type: 'string', maxLength: 64 } }, required: ['id'] } as const;
const keysQuery = { type: 'object', properties: { done: { type: 'string', maxLength: 16 } } } as const;

/** `kind:id`, split at the first colon (ids may hold colons). */
function pair(value: string): [string, string] | undefined {
  const at = value.indexOf(':');
  return at > 0 ? [value.slice(0, at), value.slice(at + 1)] : undefined;
}

export function securityPages(app: FastifyInstance, ctx: ProviderContext, base: string): void {
  const csrfIfAdmin = (request: FastifyRequest) => (mayWrite(request) ? consoleFormToken(personOf(request).cookie) : null);

  async function renderRules(
    request: FastifyRequest,
    view: { status?: number; notice?: string; error?: string; values?: Record<string, string> },
  ) {
    const rules = await listRules(adminContextOf(ctx, request));
    return {
      status: view.status,
      title: textOf(request)('console.nav.riskRules'),
      section: '/risk-rules',
      body: rulesBody(textOf(request), base, rules, { csrf: csrfIfAdmin(request), ...view }),
    };
  }

  app.get<{ Querystring: { done?: string } }>('/risk-rules', { schema: { querystring: keysQuery } }, async (request, reply) => {
    const notice = noticeOf(
      textOf(request),
      { added: 'console.rules.done.added', deleted: 'console.rules.done.deleted' },
      request.query.done,
    );
    return sendPage(reply, base, await renderRules(request, { notice }), personOf(request));
  });

  app.post<{ Body: RawParams }>('/risk-rules', async (request, reply) => {
    const values = {
      kind: field(request.body, 'kind'),
      value: field(request.body, 'value'),
      effect: field(request.body, 'effect'),
      note: field(request.body, 'note'),
    };
    const parsed = parseRiskRule(values);
    if ('problems' in parsed)
      return sendPage(
        reply,
        base,
        await renderRules(request, { status: 400, error: parsed.problems.join('; '), values }),
        personOf(request),
      );
    await addRule(adminContextOf(ctx, request), parsed.rule);
    return seeOther(reply, `${base}/risk-rules?done=added`);
  });

  app.post<{ Params: { id: string }; Body: RawParams }>(
    '/risk-rules/:id/delete',
    { schema: { params: ruleParams } },
    async (request, reply) => {
      const done = await attempt(
        () => deleteRule(adminContextOf(ctx, request), request.params.id),
        async (error, status) => sendPage(reply, base, await renderRules(request, { status, error }), personOf(request)),
      );
      if (!done.ok) return done.reply;
      return seeOther(reply, `${base}/risk-rules?done=deleted`);
    },
  );

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/security-events',
    { schema: { querystring: eventsQuery } },
    async (request, reply) => {
      const q = request.query;
      const filters: EventFilters = {
        user: q.user?.trim() ?? '',
        type: q.type ?? '',
        since: q.since?.trim() ?? '',
        until: q.until?.trim() ?? '',
      };
      const params: RawParams = Object.fromEntries(Object.entries({ ...filters, cursor: q.cursor ?? '' }).filter(([, v]) => v !== ''));
      let body;
      try {
        const page = await listSecurityEvents(ctx, parseEventQuery(params));
        body = eventsBody(textOf(request), base, filters, page.events, page.next_cursor);
      } catch (err) {
        // A malformed filter: the page says which, with no event.
        if (!(err instanceof OAuthError)) throw err;
        body = eventsBody(textOf(request), base, filters, [], null, err.description);
        reply.code(400);
      }
      return sendPage(
        reply,
        base,
        { status: reply.statusCode, title: textOf(request)('console.nav.securityEvents'), section: '/security-events', body },
        personOf(request),
      );
    },
  );

  app.get<{ Querystring: { done?: string } }>('/signing-keys', { schema: { querystring: keysQuery } }, async (request, reply) => {
    const notice = request.query.done === 'rotated' ? textOf(request)('console.keys.rotated') : undefined;
    const body = keysBody(textOf(request), base, await listKeys(ctx), { csrf: csrfIfAdmin(request), notice });
    return sendPage(reply, base, { title: textOf(request)('console.nav.signingKeys'), section: '/signing-keys', body }, personOf(request));
  });

  app.post('/signing-keys/rotate', async (request, reply) => {
    const rotation = await rotateKeys(adminContextOf(ctx, request), SIGNING_ALGS);
    if (rotation.warnings.length === 0) return seeOther(reply, `${base}/signing-keys?done=rotated`);
    const body = keysBody(textOf(request), base, await listKeys(ctx), {
      csrf: csrfIfAdmin(request),
      notice: textOf(request)('console.keys.rotated'),
      warnings: rotation.warnings,
    });
    return sendPage(reply, base, { title: textOf(request)('console.nav.signingKeys'), section: '/signing-keys', body }, personOf(request));
  });

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/audit',
    { schema: { querystring: auditQuery } },
    async (request, reply) => {
      const q = request.query;
      const f: AuditFilters = {
        actor: q.actor?.trim() ?? '',
        target: q.target?.trim() ?? '',
        event: q.event?.trim() ?? '',
        since: q.since?.trim() ?? '',
        until: q.until?.trim() ?? '',
      };
      const filter: AuditFilter = {};
      const problems: string[] = [];
      if (f.actor) {
        const p = pair(f.actor);
        if (p) [filter.actorKind, filter.actorId] = p;
        else problems.push(textOf(request)('console.audit.badActor'));
      }
      if (f.target) {
        const p = pair(f.target);
        if (p) [filter.targetType, filter.targetId] = p;
        else problems.push(textOf(request)('console.audit.badTarget'));
      }
      if (f.event) filter.event = f.event;
      for (const name of ['since', 'until'] as const) {
        if (!f[name]) continue;
        const date = parseRfc3339(f[name]);
        if (date) filter[name] = date;
        else problems.push(textOf(request)('console.audit.badDate', { name }));
      }
      if (q.before) filter.beforeId = q.before;
      if (problems.length > 0) {
        return sendPage(
          reply,
          base,
          {
            status: 400,
            title: textOf(request)('console.nav.audit'),
            section: '/audit',
            body: auditBody(textOf(request), base, f, [], null, problems.join('; ')),
          },
          personOf(request),
        );
      }
      const rows = await auditTrail(ctx, filter, AUDIT_PAGE + 1);
      const page = rows.slice(0, AUDIT_PAGE);
      const next = rows.length > AUDIT_PAGE ? (page.at(-1)?.id ?? null) : null;
      return sendPage(
        reply,
        base,
        { title: textOf(request)('console.nav.audit'), section: '/audit', body: auditBody(textOf(request), base, f, page, next) },
        personOf(request),
      );
    },
  );
}
