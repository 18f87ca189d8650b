// The console's SAML service provider pages (issue 39, docs/saml.md): listed, shown with the IdP metadata URL to give
// the SP's admin, added from pasted metadata or from its metadata URL alone, their settings changed under the
// revision the page was read at (the API's If-Match) and removed after a confirmation; through
// src/domain/saml/idp/service-provider-admin.ts, as `sso-admin saml-sps` and the API's /saml-service-providers do.
// The admin role changes, an auditor reads (index.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { asOneChange, type AdminContext } from '../../domain/admin/admin.js';
import { AdminError } from '../../domain/admin-error.js';
import { consoleFormToken } from '../../domain/console/console-sessions.js';
import type { ProviderContext } from '../../domain/context.js';
import type { RawParams } from '../../domain/params.js';
import {
  listServiceProviders,
  prepareServiceProvider,
  removeServiceProvider,
  showServiceProvider,
  storeServiceProvider,
  updateServiceProvider,
  type SamlSpView,
} from '../../domain/saml/idp/service-provider-admin.js';
import type { MessageKey } from '../../i18n/catalog.js';
import type { Translate } from '../../i18n/translate.js';
import { seeOther } from '../redirect.js';
import { attempt, field, noticeOf, notFound } from './console-forms.js';
import { adminContextOf, mayWrite, personOf, sendPage, textOf } from './console-http.js';
import { changeIfRevision, formRevision, revisionOf, type FormRevision } from './console-revision.js';
import { deleteSpBody, newSpBody, spBody, spListBody, type SpFormValues } from './views/saml-service-providers.js';

const PATH = '/saml-service-providers';
const idParams = { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 2048 } }, required: ['id'] } as const;
const doneQuery = { type: 'object', properties: { done: { type: 'string', maxLength: 16 } } } as const;
const DONE: Readonly<Record<string, MessageKey>> = { created: 'console.done.created', saved: 'console.done.saved' };

const checked = (body: RawParams | undefined, name: string) => (field(body, name) === 'on' ? 'on' : '');

function valuesOf(body: RawParams | undefined): SpFormValues {
  return {
    metadata_xml: field(body, 'metadata_xml'),
    metadata_url: field(body, 'metadata_url'),
    name_id_format: field(body, 'name_id_format'),
    attributes: field(body, 'attributes'),
    // An unchecked box is not sent at all (HTML's form submission): absent means off.
    sign_assertion: checked(body, 'sign_assertion'),
    sign_response: checked(body, 'sign_response'),
    encrypt_assertion: checked(body, 'encrypt_assertion'),
    idp_initiated: checked(body, 'idp_initiated'),
    limit_groups: checked(body, 'limit_groups'),
    allowed_groups: field(body, 'allowed_groups'),
  };
}

/** The non-empty lines of a textarea, trimmed. */
const lines = (value: string): string[] =>
  value
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');

/** "Name source" a line; the source is the last word, so a name may hold spaces. */
function attributesOf(t: Translate, text: string): Array<{ name: string; from: string }> {
  return lines(text).map((line) => {
    const cut = line.search(/\s+\S+$/);
    if (cut <= 0) throw new AdminError(t('console.samlSps.attributeLine', { line }));
    return { name: line.slice(0, cut).trim(), from: line.slice(cut).trim() };
  });
}

/** The settings the form sets, as the entry's fields (the domain checks them as the seed file's). */
function settingsOf(t: Translate, v: SpFormValues): Record<string, unknown> {
  return {
    metadata_url: v.metadata_url === '' ? undefined : v.metadata_url,
    name_id_format: v.name_id_format,
    attributes: attributesOf(t, v.attributes),
    sign_assertion: v.sign_assertion === 'on',
    sign_response: v.sign_response === 'on',
    encrypt_assertion: v.encrypt_assertion === 'on',
    idp_initiated: v.idp_initiated === 'on',
    // allowed_groups: null lifts the limit (updateServiceProvider).
    allowed_groups: v.limit_groups === 'on' ? lines(v.allowed_groups) : null,
  };
}

const NEW_VALUES: SpFormValues = {
  metadata_xml: '',
  metadata_url: '',
  name_id_format: 'unspecified',
  attributes: 'email email\ngivenName given_name\nsn family_name\ndisplayName name\ngroups groups',
  sign_assertion: 'on',
  sign_response: 'on',
  encrypt_assertion: '',
  idp_initiated: '',
  limit_groups: '',
  allowed_groups: '',
};

export function samlServiceProviderPages(app: FastifyInstance, ctx: ProviderContext, base: string): void {
  const csrf = (request: FastifyRequest) => consoleFormToken(personOf(request).cookie);
  const one = (id: string) => `${base}${PATH}/${encodeURIComponent(id)}`;
  // What the SP's admin configures first: where this provider's IdP metadata is (src/http/saml/metadata.ts).
  const idpMetadataUrl = `${ctx.config.issuer}/saml/metadata`;
  const guard = (id: string) => ({
    read: (c: AdminContext) => showServiceProvider(c, id),
    lock: (sp: SamlSpView) => ({ type: 'saml_sp' as const, id: sp.entity_id }),
    tagged: (sp: SamlSpView) => sp,
  });

  async function renderOne(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    extra: { status?: number; notice?: string; error?: string; values?: SpFormValues } = {},
  ) {
    const person = personOf(request);
    const t = textOf(request);
    const found = await attempt(
      () => showServiceProvider(adminContextOf(ctx, request), id),
      (message, status) => notFound(reply, base, person, message, status),
    );
    if (!found.ok) return found.reply;
    const sp = found.value;
    const body = spBody(t, base, sp, {
      idpMetadataUrl,
      csrf: mayWrite(request) ? csrf(request) : null,
      revision: revisionOf(sp),
      ...(extra.values ? { values: extra.values } : {}),
      ...(extra.notice ? { notice: extra.notice } : {}),
      ...(extra.error ? { error: extra.error } : {}),
    });
    return sendPage(reply, base, { status: extra.status, title: t('console.samlSps.page', { id }), section: PATH, body }, person);
  }

  app.get(PATH, async (request, reply) => {
    const t = textOf(request);
    const sps = await listServiceProviders(adminContextOf(ctx, request));
    return sendPage(
      reply,
      base,
      { title: t('console.samlSps.title'), section: PATH, body: spListBody(t, base, sps, idpMetadataUrl, mayWrite(request)) },
      personOf(request),
    );
  });

  app.get(`${PATH}/new`, { config: { consoleWrite: true } }, async (request, reply) => {
    const t = textOf(request);
    return sendPage(
      reply,
      base,
      { title: t('console.samlSps.new'), section: PATH, body: newSpBody(t, base, csrf(request), NEW_VALUES) },
      personOf(request),
    );
  });

  app.post<{ Body: RawParams }>(PATH, async (request, reply) => {
    const t = textOf(request);
    const values = valuesOf(request.body);
    const done = await attempt(
      () =>
        asOneChange(adminContextOf(ctx, request), async (tctx) => {
          if (values.metadata_xml === '' && values.metadata_url === '') throw new AdminError(t('console.samlSps.metadataNeeded'));
          const { allowed_groups: groups, metadata_url: url, ...settings } = settingsOf(t, values);
          // Pasted metadata, or the document at its URL (read through the guarded fetch), checked alike.
          const prepared = await prepareServiceProvider(tctx, {
            ...(values.metadata_xml === '' ? {} : { metadata_xml: values.metadata_xml }),
            ...settings,
            ...(url === undefined ? {} : { metadata_url: url }),
            ...(groups === null ? {} : { allowed_groups: groups }),
          });
          const id = prepared.entityId;
          // A new one only: changing a registered one is its own page's form, under its revision.
          if ((await showServiceProvider(tctx, id).catch(() => undefined)) !== undefined)
            throw new AdminError(t('console.samlSps.exists', { id }), 'conflict');
          await storeServiceProvider(tctx, prepared);
          return id;
        }),
      (message, status) =>
        sendPage(
          reply,
          base,
          { status, title: t('console.samlSps.new'), section: PATH, body: newSpBody(t, base, csrf(request), values, message) },
          personOf(request),
        ),
    );
    if (!done.ok) return done.reply;
    return seeOther(reply, `${one(done.value)}?done=created`);
  });

  app.get<{ Params: { id: string }; Querystring: { done?: string } }>(
    `${PATH}/:id`,
    { schema: { params: idParams, querystring: doneQuery } },
    async (request, reply) => renderOne(request, reply, request.params.id, { notice: noticeOf(textOf(request), DONE, request.query.done) }),
  );

  app.post<{ Params: { id: string }; Body: RawParams }>(`${PATH}/:id`, { schema: { params: idParams } }, async (request, reply) => {
    const { id } = request.params;
    const t = textOf(request);
    const values = valuesOf(request.body);
    const revision: FormRevision = formRevision(request);
    const done = await attempt(
      () =>
        changeIfRevision(adminContextOf(ctx, request), guard(id), revision, (tctx) =>
          updateServiceProvider(tctx, id, {
            ...settingsOf(t, values),
            // Empty: the metadata stays as it is; pasted: it must name this entityID (the domain checks).
            ...(values.metadata_xml === '' ? {} : { metadata_xml: values.metadata_xml }),
          }),
        ),
      // Changed meanwhile: the form shows it as it is now, not what was typed over an older version.
      (error, status) => renderOne(request, reply, id, { status, error, ...(status === 412 || status === 428 ? {} : { values }) }),
    );
    if (!done.ok) return done.reply;
    return seeOther(reply, `${one(id)}?done=saved`);
  });

  app.get<{ Params: { id: string } }>(
    `${PATH}/:id/delete`,
    { schema: { params: idParams }, config: { consoleWrite: true } },
    async (request, reply) => {
      const person = personOf(request);
      const found = await attempt(
        () => showServiceProvider(adminContextOf(ctx, request), request.params.id),
        (message, status) => notFound(reply, base, person, message, status),
      );
      if (!found.ok) return found.reply;
      const t = textOf(request);
      const body = deleteSpBody(t, base, request.params.id, csrf(request), revisionOf(found.value));
      return sendPage(reply, base, { title: t('console.samlSps.deleteTitle'), section: PATH, body }, person);
    },
  );

  app.post<{ Params: { id: string }; Body: RawParams }>(`${PATH}/:id/delete`, { schema: { params: idParams } }, async (request, reply) => {
    const { id } = request.params;
    const person = personOf(request);
    const done = await attempt(
      () => changeIfRevision(adminContextOf(ctx, request), guard(id), formRevision(request), (tctx) => removeServiceProvider(tctx, id)),
      (message, status) => notFound(reply, base, person, message, status),
    );
    if (!done.ok) return done.reply;
    return seeOther(reply, `${base}${PATH}`);
  });
}
