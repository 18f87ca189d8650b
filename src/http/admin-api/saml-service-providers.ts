// /saml-service-providers: the SAML service providers the provider signs people in to (src/domain/saml/idp/
// service-provider-admin.ts, as `sso-admin saml-sps`), keyed by their entityID (URL-encoded in the path). A PUT body
// is the seed file's entry: the SP's metadata XML, or the URL it is read from, and its settings; the entityID in the
// metadata must be the path's.
import {
  listServiceProviders,
  removeServiceProvider,
  setServiceProvider,
  showServiceProvider,
} from '../../domain/saml/idp/service-provider-admin.js';
import { entityRoutes } from './entity-routes.js';
import type { AdminApi, JsonSchema } from './route.js';

const STRING = { type: 'string' } as const;
const BOOLEAN = { type: 'boolean' } as const;
const ATTRIBUTES = {
  type: 'array',
  items: { type: 'object', required: ['name', 'from'], properties: { name: STRING, from: STRING }, additionalProperties: false },
} as const;

const VIEW: JsonSchema = {
  type: 'object',
  required: ['entity_id', 'name_id_format', 'attributes', 'sign_assertion', 'sign_response', 'encrypt_assertion', 'idp_initiated', 'acs'],
  properties: {
    entity_id: STRING,
    metadata_url: { type: ['string', 'null'] },
    name_id_format: STRING,
    attributes: ATTRIBUTES,
    sign_assertion: BOOLEAN,
    sign_response: BOOLEAN,
    encrypt_assertion: BOOLEAN,
    encryption_algorithm: STRING,
    encryption_method: STRING,
    idp_initiated: BOOLEAN,
    allowed_groups: { type: 'array', items: STRING },
    acs: { type: 'array', items: { type: 'object', additionalProperties: true } },
    authn_requests_signed: BOOLEAN,
    signing_certificates: { type: 'integer' },
    encryption_certificates: { type: 'integer' },
  },
};

const BODY: JsonSchema = {
  type: 'object',
  description: 'The metadata inline (metadata_xml), or only its URL (metadata_url), or both; one of the two is required.',
  anyOf: [{ required: ['metadata_xml'] }, { required: ['metadata_url'] }],
  properties: {
    entity_id: STRING,
    metadata_xml: { type: 'string', minLength: 1, maxLength: 1048576, description: "the SP's SAML metadata" },
    metadata_url: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      description:
        "where the SP publishes its metadata: read from there (through the guarded fetch) when no metadata_xml is given, and refreshed from there every 6 hours; it must name the path's entityID",
    },
    name_id_format: STRING,
    attributes: ATTRIBUTES,
    sign_assertion: BOOLEAN,
    sign_response: BOOLEAN,
    encrypt_assertion: BOOLEAN,
    encryption_algorithm: {
      type: 'string',
      enum: ['aes256-gcm', 'aes128-gcm', 'aes256-cbc', 'aes128-cbc'],
      description: "the block cipher when the SP's metadata names none we support (default aes256-gcm)",
    },
    idp_initiated: BOOLEAN,
    allowed_groups: { type: 'array', items: STRING },
  },
  additionalProperties: false,
};

export function samlServiceProviderRoutes(api: AdminApi): void {
  entityRoutes(api, {
    path: '/saml-service-providers',
    param: 'entity_id',
    tag: 'saml-service-providers',
    noun: 'SamlServiceProvider',
    item: VIEW,
    body: BODY,
    list: listServiceProviders,
    keyOf: (sp) => sp.entity_id,
    lock: 'saml_sp',
    show: showServiceProvider,
    set: async (ctx, body) => {
      const { entity_id: entityId, ...entry } = body;
      const done = await setServiceProvider(ctx, entry, { entityId: String(entityId) });
      return { item: done.sp, created: done.created };
    },
    remove: removeServiceProvider,
  });
}
