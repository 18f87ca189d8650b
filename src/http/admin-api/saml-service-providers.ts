// /saml-service-providers: the SAML service providers the provider signs people in to (src/domain/saml/idp/
// service-provider-admin.ts, as `sso-admin saml-sps`), keyed by their entityID (URL-encoded in the path). A PUT body
// is the seed file's entry: the SP's metadata XML and its settings; the entityID in the metadata must be the path's.
import {
  listServiceProviders,
  removeServiceProvider,
  setServiceProvider,
  showServiceProvider,
} from '../../domain/saml/idp/service-provider-admin.js';
import { readSpMetadata } from '../../domain/saml/idp/service-providers.js';
import { AdminError } from '../../domain/admin-error.js';
import { SamlError } from '../../domain/saml/saml-error.js';
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
  required: ['metadata_xml'],
  properties: {
    entity_id: STRING,
    metadata_xml: { type: 'string', minLength: 1, maxLength: 1048576, description: "the SP's SAML metadata" },
    metadata_url: STRING,
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
      let named: string;
      try {
        named = readSpMetadata(String(entry.metadata_xml)).entityId;
      } catch (err) {
        if (err instanceof SamlError) throw new AdminError(`service provider refused: metadata_xml: ${err.description}`);
        throw err;
      }
      if (named !== entityId) throw new AdminError(`the metadata names "${named}", not the path's "${String(entityId)}"`);
      const done = await setServiceProvider(ctx, entry);
      return { item: done.sp, created: done.created };
    },
    remove: removeServiceProvider,
  });
}
