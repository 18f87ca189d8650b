// What the SCIM endpoints say of themselves (RFC 7644 4, RFC 7643 5-7): /ServiceProviderConfig, /ResourceTypes and
// /Schemas, saying what actually works here and no more.
import { MAX_RESULTS, type Json } from './representation.js';
import { GROUP_SCHEMA } from './groups.js';
import { USER_SCHEMA } from './users.js';

const SPC_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

const meta = (resourceType: string, location: string) => ({ resourceType, location });

/** RFC 7643 5: patch and filtering (eq, co, sw, and) and ETags work; bulk, sort and password changes do not. */
export function serviceProviderConfig(scimBase: string): Json {
  return {
    schemas: [SPC_SCHEMA],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: 'A client_credentials access token of a confidential client granted the scim scope (RFC 6750)',
        specUri: 'https://www.rfc-editor.org/rfc/rfc6750',
        primary: true,
      },
    ],
    meta: meta('ServiceProviderConfig', `${scimBase}/ServiceProviderConfig`),
  };
}

/** RFC 7643 6: Users and Groups. */
export function resourceTypes(scimBase: string): Json[] {
  return [
    { id: 'User', name: 'User', endpoint: '/Users', description: 'User Account', schema: USER_SCHEMA },
    { id: 'Group', name: 'Group', endpoint: '/Groups', description: 'Group', schema: GROUP_SCHEMA },
  ].map((t) => ({ schemas: [RESOURCE_TYPE_SCHEMA], ...t, meta: meta('ResourceType', `${scimBase}/ResourceTypes/${t.id}`) }));
}

type Attr = Json & { name: string };

/** RFC 7643 7: one attribute definition, with the defaults of RFC 7643 2.2 spelled out. */
const attr = (name: string, extra: Json = {}): Attr => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

const USER_ATTRIBUTES: Attr[] = [
  attr('userName', { required: true, uniqueness: 'server', description: 'The username people sign in with; unique in any case.' }),
  attr('externalId', { caseExact: true, description: "The provisioning client's identifier of the user." }),
  attr('name', {
    type: 'complex',
    subAttributes: [attr('formatted'), attr('familyName'), attr('givenName')],
    description: 'givenName and familyName are the given_name and family_name claims; formatted is the name claim.',
  }),
  attr('displayName', { description: 'The name claim.' }),
  attr('emails', {
    type: 'complex',
    multiValued: true,
    subAttributes: [attr('value'), attr('type'), attr('primary', { type: 'boolean' })],
    description: 'One address is kept: the primary one (else the first); unique in any case.',
  }),
  attr('active', { type: 'boolean', description: 'False disables the user and ends their sessions.' }),
];

const GROUP_ATTRIBUTES: Attr[] = [
  attr('displayName', { required: true, uniqueness: 'server', description: 'The group name; unique in any case.' }),
  attr('members', {
    type: 'complex',
    multiValued: true,
    subAttributes: [
      attr('value', { mutability: 'immutable', description: 'The id of a User.' }),
      attr('display', { mutability: 'readOnly' }),
      attr('$ref', { type: 'reference', referenceTypes: ['User'], mutability: 'immutable' }),
    ],
  }),
];

/** RFC 7643 7: the schemas of the resources, as this server keeps them. */
export function schemas(scimBase: string): Json[] {
  return [
    { id: USER_SCHEMA, name: 'User', description: 'User Account', attributes: USER_ATTRIBUTES },
    { id: GROUP_SCHEMA, name: 'Group', description: 'Group', attributes: GROUP_ATTRIBUTES },
  ].map((s) => ({ schemas: [SCHEMA_SCHEMA], ...s, meta: meta('Schema', `${scimBase}/Schemas/${s.id}`) }));
}
