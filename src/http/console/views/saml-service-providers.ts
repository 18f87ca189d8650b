// The console's SAML service provider pages (issue 39): the list, one with its details (the IdP metadata URL its
// admin needs first) and the form of its settings, the form that adds one from its pasted metadata or its
// metadata URL, and the confirmation before a removal.
import { html, type SafeHtml } from '../../../html.js';
import type { Translate } from '../../../i18n/translate.js';
import type { SamlSpView } from '../../../domain/saml/idp/service-provider-admin.js';
import { NAME_ID_FORMAT_NAMES } from '../../../domain/saml/idp/service-providers.js';
import { csrfField, emphasised, messages, revisionField, table } from './pages.js';
import { shown } from './entities.js';

/** What the form shows: a service provider's settings, or what was typed into a refused form. */
export interface SpFormValues {
  metadata_xml: string;
  metadata_url: string;
  name_id_format: string;
  /** One released attribute a line: its SAML Name, a space, and where its value comes from (email, groups...). */
  attributes: string;
  /** 'on' when checked (the checkbox's value), else ''. */
  sign_assertion: string;
  sign_response: string;
  encrypt_assertion: string;
  idp_initiated: string;
  limit_groups: string;
  /** Group names, one a line (a name may hold spaces). */
  allowed_groups: string;
}

const on = (value: boolean): string => (value ? 'on' : '');

export function spFormValuesOf(sp: SamlSpView): SpFormValues {
  return {
    metadata_xml: '',
    metadata_url: sp.metadata_url ?? '',
    name_id_format: sp.name_id_format,
    attributes: sp.attributes.map((a) => `${a.name} ${a.from}`).join('\n'),
    sign_assertion: on(sp.sign_assertion),
    sign_response: on(sp.sign_response),
    encrypt_assertion: on(sp.encrypt_assertion),
    idp_initiated: on(sp.idp_initiated),
    limit_groups: on(sp.allowed_groups !== undefined),
    allowed_groups: (sp.allowed_groups ?? []).join('\n'),
  };
}

const spPath = (base: string, entityId: string) => `${base}/saml-service-providers/${encodeURIComponent(entityId)}`;

export function spListBody(t: Translate, base: string, sps: readonly SamlSpView[], idpMetadataUrl: string, mayWrite: boolean): SafeHtml {
  return html`<p>${t('console.samlSps.lead')}</p>
<p>${t('console.samlSps.idpMetadata')} <code>${idpMetadataUrl}</code></p>
${mayWrite ? html`<p><a href="${base}/saml-service-providers/new">${t('console.samlSps.new')}</a></p>` : ''}
${table(
  t('console.samlSps.title'),
  [t('console.samlSps.entityId'), t('console.samlSps.nameIdFormat'), t('console.samlSps.acs'), t('console.samlSps.idpInitiated')],
  sps.map((sp) => [
    html`<a href="${spPath(base, sp.entity_id)}">${sp.entity_id}</a>`,
    sp.name_id_format,
    sp.acs.map((a) => a.location).join(' '),
    shown(t, sp.idp_initiated),
  ]),
  t('console.samlSps.none'),
)}`;
}

function check(name: keyof SpFormValues, label: string, v: SpFormValues): SafeHtml {
  return html`<div class="check"><input type="checkbox" id="${name}" name="${name}"${v[name] === 'on' ? html` checked` : ''}><label for="${name}">${label}</label></div>`;
}

function spFields(t: Translate, v: SpFormValues, isNew: boolean): SafeHtml {
  return html`<label for="metadata_xml">${isNew ? t('console.samlSps.metadataField') : t('console.samlSps.newMetadataField')}</label>
<textarea id="metadata_xml" name="metadata_xml" rows="10" spellcheck="false">${v.metadata_xml}</textarea>
<label for="metadata_url">${t('console.samlSps.metadataUrlField')}</label><input type="url" id="metadata_url" name="metadata_url" value="${v.metadata_url}">
<label for="name_id_format">${t('console.samlSps.nameIdFormat')}</label><select id="name_id_format" name="name_id_format">${NAME_ID_FORMAT_NAMES.map(
    (f) => html`<option value="${f}"${f === v.name_id_format ? html` selected` : ''}>${f}</option>`,
  )}</select>
<label for="attributes">${t('console.samlSps.attributesField')}</label><textarea id="attributes" name="attributes" rows="6" spellcheck="false">${v.attributes}</textarea>
${check('sign_assertion', t('console.samlSps.signAssertion'), v)}
${check('sign_response', t('console.samlSps.signResponse'), v)}
${check('encrypt_assertion', t('console.samlSps.encryptAssertion'), v)}
${check('idp_initiated', t('console.samlSps.idpInitiated'), v)}
${check('limit_groups', t('console.samlSps.limitGroups'), v)}
<label for="allowed_groups">${t('console.samlSps.allowedGroups')}</label><textarea id="allowed_groups" name="allowed_groups">${v.allowed_groups}</textarea>`;
}

export function newSpBody(t: Translate, base: string, csrf: string, v: SpFormValues, error?: string): SafeHtml {
  return html`${messages(undefined, error)}<p>${t('console.samlSps.newLead')}</p>
<form method="post" action="${base}/saml-service-providers">${csrfField(csrf)}${spFields(t, v, true)}
<div><button type="submit">${t('console.samlSps.create')}</button></div></form>`;
}

export function spBody(
  t: Translate,
  base: string,
  sp: SamlSpView,
  view: { idpMetadataUrl: string; csrf: string | null; revision: string; values?: SpFormValues; notice?: string; error?: string },
): SafeHtml {
  const path = spPath(base, sp.entity_id);
  const details = table(
    t('console.samlSps.details'),
    [t('console.field'), t('console.value')],
    [
      [t('console.samlSps.entityId'), sp.entity_id],
      [t('console.samlSps.idpMetadata'), html`<code>${view.idpMetadataUrl}</code>`],
      [
        t('console.samlSps.acs'),
        html`${sp.acs.map((a) => html`<div>${a.location} (${a.binding}, ${a.index}${a.is_default ? `, ${t('console.samlSps.isDefault')}` : ''})</div>`)}`,
      ],
      [t('console.samlSps.nameIdFormat'), sp.name_id_format],
      [t('console.samlSps.attributes'), html`${sp.attributes.map((a) => html`<div>${a.name} ← ${a.from}</div>`)}`],
      [t('console.samlSps.signAssertion'), shown(t, sp.sign_assertion)],
      [t('console.samlSps.signResponse'), shown(t, sp.sign_response)],
      [t('console.samlSps.encryptAssertion'), shown(t, sp.encrypt_assertion)],
      [t('console.samlSps.idpInitiated'), shown(t, sp.idp_initiated)],
      [t('console.samlSps.allowedGroups'), sp.allowed_groups === undefined ? t('console.samlSps.everyone') : shown(t, sp.allowed_groups)],
      [t('console.samlSps.requestsSigned'), shown(t, sp.authn_requests_signed)],
      [
        t('console.samlSps.certificates'),
        t('console.samlSps.certificateCounts', { signing: sp.signing_certificates, encryption: sp.encryption_certificates }),
      ],
      [t('console.samlSps.metadataUrl'), sp.metadata_url ?? t('console.none')],
    ],
  );
  if (!view.csrf) return html`${messages(view.notice, view.error)}${details}`;
  return html`${messages(view.notice, view.error)}${details}
<h2>${t('console.edit')}</h2>
<form method="post" action="${path}">${csrfField(view.csrf)}${revisionField(view.revision)}${spFields(t, view.values ?? spFormValuesOf(sp), false)}
<div><button type="submit">${t('console.saveChanges')}</button></div></form>
<h2>${t('console.removal')}</h2>
<p><a href="${path}/delete">${t('console.samlSps.deleteThis')}</a></p>`;
}

export function deleteSpBody(t: Translate, base: string, entityId: string, csrf: string, revision: string): SafeHtml {
  const path = spPath(base, entityId);
  return html`<p>${emphasised(t, 'console.samlSps.deleteQuestion', 'id', entityId)} ${t('console.samlSps.consequence')} ${t('console.cannotBeUndone')}</p>
<form method="post" action="${path}/delete">${csrfField(csrf)}${revisionField(revision)}<button type="submit" class="danger">${t('console.deleteNamed', { name: entityId })}</button></form>
<p><a href="${path}">${t('console.keepIt')}</a></p>`;
}
