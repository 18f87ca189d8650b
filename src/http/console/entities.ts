// The console's pages of a resource that is set whole, as a seed file entry is (resource servers, connections,
// directories), the console's side of src/http/admin-api/entity-routes.ts: list, show, create, replace (under the
// API's revision where the API has If-Match), delete after a confirmation; each through the domain functions the
// API and the command line call, so each change is checked as the seed file checks it and audited with the person.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { asOneChange, type AdminContext, type LockTarget } from '../../domain/admin/admin.js';
import { AdminError } from '../../domain/admin-error.js';
import { consoleFormToken } from '../../domain/console/console-sessions.js';
import type { ProviderContext } from '../../domain/context.js';
import type { RawParams } from '../../domain/params.js';
import type { SafeHtml } from '../../html.js';
import type { MessageKey } from '../../i18n/catalog.js';
import type { Translate } from '../../i18n/translate.js';
import { seeOther } from '../redirect.js';
import { deleteEntityBody, entityBody, entityListBody, newEntityBody, type EntityRow, type EntityWords } from './views/entities.js';
import { attempt, field, noticeOf, notFound } from './console-forms.js';
import { adminContextOf, mayWrite, personOf, sendPage, textOf } from './console-http.js';
import { changeIfRevision, formRevision, revisionOf } from './console-revision.js';

export interface EntityPages<T> {
  words: EntityWords;
  list(ctx: AdminContext): Promise<T[]>;
  show(ctx: AdminContext, id: string): Promise<T>;
  idOf(item: T): string;
  headers(t: Translate): readonly string[];
  /** The list's cells after the id. */
  row(item: T, t: Translate): EntityRow['cells'];
  details(item: T, t: Translate): ReadonlyArray<readonly [string, EntityRow['cells'][number]]>;
  /** The item as the entry its form edits (never its secret). */
  entryOf(item: T): Record<string, unknown>;
  /** The entry a new one's form starts from. */
  template(t: Translate): Record<string, unknown>;
  /** Adds the secret typed into the form to the entry; may refuse (an AdminError) when one must be typed. */
  withSecret?(entry: Record<string, unknown>, secret: string, current: T | undefined, t: Translate): Record<string, unknown>;
  set(ctx: AdminContext, entry: Record<string, unknown>): Promise<unknown>;
  remove(ctx: AdminContext, id: string): Promise<void>;
  /** What a deletion does, on its confirmation page. */
  consequence(item: T, t: Translate): string;
  /** The row a change locks, where the API has If-Match for it (its ETag is the item's JSON). */
  lock?: LockTarget['type'];
  /** More of one item's page (a test form, say). */
  extra?(item: T, csrf: string | null, t: Translate): SafeHtml;
}

const DONE: Readonly<Record<string, MessageKey>> = { created: 'console.done.created', saved: 'console.done.saved' };
const idParams = { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 2048 } }, required: ['id'] } as const;
const doneQuery = { type: 'object', properties: { done: { type: 'string', maxLength: 16 } } } as const;

const pretty = (entry: Record<string, unknown>) => JSON.stringify(entry, null, 2);

/** The form's entry: a JSON object, or an AdminError saying why not (never a 500). */
function parseEntry(t: Translate, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AdminError(t('console.entity.notJson'));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new AdminError(t('console.entity.notObject'));
  return value as Record<string, unknown>;
}

/** One item's page, with a notice or why a change was refused: for the routes a kind adds of its own. */
export type RenderEntity = (
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
  extra?: { status?: number; notice?: string; error?: string; json?: string },
) => Promise<FastifyReply>;

/** What a refused form shows again of the typed entry: never a secret typed into it by mistake. */
function echoOf(t: Translate, json: string, secret: string | undefined): string {
  if (secret === undefined || !json.includes(secret)) return json;
  try {
    const { [secret]: _dropped, ...rest } = parseEntry(t, json);
    return pretty(rest);
  } catch {
    return '';
  }
}

export function entityPages<T>(app: FastifyInstance, ctx: ProviderContext, base: string, spec: EntityPages<T>): RenderEntity {
  const { words: w } = spec;
  const csrf = (request: FastifyRequest) => consoleFormToken(personOf(request).cookie);
  const one = (id: string) => `${base}${w.path}/${encodeURIComponent(id)}`;
  const revisionOfItem = (item: T) => (spec.lock ? revisionOf(item) : undefined);

  async function renderOne(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    extra: { status?: number; notice?: string; error?: string; json?: string } = {},
  ) {
    const person = personOf(request);
    const t = textOf(request);
    const found = await attempt(
      () => spec.show(adminContextOf(ctx, request), id),
      (message, status) => notFound(reply, base, person, message, status),
    );
    if (!found.ok) return found.reply;
    const item = found.value;
    const token = mayWrite(request) ? csrf(request) : null;
    const body = entityBody(t, base, w, {
      id,
      details: spec.details(item, t),
      csrf: token,
      revision: revisionOfItem(item),
      json: extra.json ?? pretty(spec.entryOf(item)),
      notice: extra.notice,
      error: extra.error,
      extra: spec.extra?.(item, token, t),
    });
    return sendPage(reply, base, { status: extra.status, title: t(`${w.keys}.page`, { id }), section: w.path, body }, person);
  }

  app.get(w.path, async (request, reply) => {
    const t = textOf(request);
    const items = await spec.list(adminContextOf(ctx, request));
    const rows = items.map((item) => ({ id: spec.idOf(item), cells: spec.row(item, t) }));
    const body = entityListBody(t, base, w, spec.headers(t), rows, mayWrite(request));
    return sendPage(reply, base, { title: t(`${w.keys}.title`), section: w.path, body }, personOf(request));
  });

  app.get(`${w.path}/new`, { config: { consoleWrite: true } }, async (request, reply) => {
    const t = textOf(request);
    return sendPage(
      reply,
      base,
      { title: t(`${w.keys}.new`), section: w.path, body: newEntityBody(t, base, w, csrf(request), pretty(spec.template(t))) },
      personOf(request),
    );
  });

  app.post<{ Body: RawParams }>(w.path, async (request, reply) => {
    const json = field(request.body, 'entry');
    const admin = adminContextOf(ctx, request);
    const t = textOf(request);
    const done = await attempt(
      () =>
        asOneChange(admin, async (tctx) => {
          const entry = parseEntry(t, json);
          const id = entry[w.idField];
          // A new one only: replacing an existing one is its own page's form, under its revision.
          if (typeof id === 'string' && (await spec.show(tctx, id).catch(() => undefined)) !== undefined)
            throw new AdminError(t(`${w.keys}.exists`, { id }), 'conflict');
          await spec.set(tctx, spec.withSecret ? spec.withSecret(entry, field(request.body, 'secret'), undefined, t) : entry);
          return String(id);
        }),
      (message, status) =>
        sendPage(
          reply,
          base,
          {
            status,
            title: t(`${w.keys}.new`),
            section: w.path,
            body: newEntityBody(t, base, w, csrf(request), echoOf(t, json, w.secret?.name), message),
          },
          personOf(request),
        ),
    );
    if (!done.ok) return done.reply;
    return seeOther(reply, `${one(done.value)}?done=created`);
  });

  app.get<{ Params: { id: string }; Querystring: { done?: string } }>(
    `${w.path}/:id`,
    { schema: { params: idParams, querystring: doneQuery } },
    async (request, reply) => renderOne(request, reply, request.params.id, { notice: noticeOf(textOf(request), DONE, request.query.done) }),
  );

  /** Runs a change of the item of `id` under the form's revision: locked, as the API's If-Match, where it has one. */
  function underRevision(
    admin: AdminContext,
    id: string,
    request: FastifyRequest,
    change: (tctx: AdminContext, current: T) => Promise<unknown>,
  ) {
    if (spec.lock) {
      const lock = spec.lock;
      const guard = {
        read: (c: AdminContext) => spec.show(c, id),
        lock: (item: T) => ({ type: lock, id: spec.idOf(item) }),
        tagged: (item: T) => item,
      };
      return changeIfRevision(admin, guard, formRevision(request), change);
    }
    return asOneChange(admin, async (tctx) => change(tctx, await spec.show(tctx, id)));
  }

  app.post<{ Params: { id: string }; Body: RawParams }>(`${w.path}/:id`, { schema: { params: idParams } }, async (request, reply) => {
    const { id } = request.params;
    const json = field(request.body, 'entry');
    const t = textOf(request);
    const done = await attempt(
      () =>
        underRevision(adminContextOf(ctx, request), id, request, async (tctx, current) => {
          const entry = parseEntry(t, json);
          if (entry[w.idField] !== undefined && entry[w.idField] !== id) throw new AdminError(t(`${w.keys}.idFixed`, { field: w.idField }));
          const whole = { ...entry, [w.idField]: id };
          await spec.set(tctx, spec.withSecret ? spec.withSecret(whole, field(request.body, 'secret'), current, t) : whole);
        }),
      // Changed meanwhile: the form shows it as it is now, not what was typed over an older version.
      (error, status) =>
        renderOne(request, reply, id, {
          status,
          error,
          ...(status === 412 || status === 428 ? {} : { json: echoOf(t, json, w.secret?.name) }),
        }),
    );
    if (!done.ok) return done.reply;
    return seeOther(reply, `${one(id)}?done=saved`);
  });

  app.get<{ Params: { id: string } }>(
    `${w.path}/:id/delete`,
    { schema: { params: idParams }, config: { consoleWrite: true } },
    async (request, reply) => {
      const person = personOf(request);
      const found = await attempt(
        () => spec.show(adminContextOf(ctx, request), request.params.id),
        (message, status) => notFound(reply, base, person, message, status),
      );
      if (!found.ok) return found.reply;
      const item = found.value;
      const t = textOf(request);
      const body = deleteEntityBody(t, base, w, request.params.id, spec.consequence(item, t), csrf(request), revisionOfItem(item));
      return sendPage(reply, base, { title: t(`${w.keys}.deleteTitle`), section: w.path, body }, person);
    },
  );

  app.post<{ Params: { id: string }; Body: RawParams }>(
    `${w.path}/:id/delete`,
    { schema: { params: idParams } },
    async (request, reply) => {
      const { id } = request.params;
      const person = personOf(request);
      const done = await attempt(
        () => underRevision(adminContextOf(ctx, request), id, request, (tctx) => spec.remove(tctx, id)),
        (message, status) => notFound(reply, base, person, message, status),
      );
      if (!done.ok) return done.reply;
      return seeOther(reply, `${base}${w.path}`);
    },
  );
  return renderOne;
}
