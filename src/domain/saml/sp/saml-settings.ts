// What a SAML connection (issue 39) knows of its identity provider, as connections.saml holds it: read from the IdP's
// metadata (kept as given, with the URL it is refreshed from), whether the IdP may send responses nobody asked for,
// and which attribute names each local claim is read from. Versioned (src/storage/json-shape.ts).
import {
  arrayOf,
  boolean,
  nullable,
  object,
  oneOf,
  optional,
  string,
  type Shape,
  type VersionedShapes,
} from '../../../storage/json-shape.js';
import type { SsoBinding } from './idp-metadata.js';

/** The local claims a SAML attribute may fill. */
export const ATTRIBUTE_FIELDS = ['email', 'given_name', 'family_name', 'name', 'username', 'groups'] as const;
export type AttributeField = (typeof ATTRIBUTE_FIELDS)[number];
export type AttributeMapping = Record<AttributeField, string[]>;

/**
 * The names Okta, Entra ID, ADFS, Google Workspace and Shibboleth send, the first one present winning: LDAP names,
 * their urn:oid forms (eduPerson / InCommon), and the WS-Federation claim URIs Entra ID and ADFS use.
 */
export const DEFAULT_ATTRIBUTES: Readonly<AttributeMapping> = Object.freeze({
  email: [
    'email',
    'mail',
    'urn:oid:0.9.2342.19200300.100.1.3',
    'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
    'emailAddress',
  ],
  given_name: ['givenName', 'firstName', 'urn:oid:2.5.4.42', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname'],
  family_name: ['sn', 'lastName', 'surname', 'urn:oid:2.5.4.4', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname'],
  name: [
    'displayName',
    'name',
    'urn:oid:2.16.840.1.113730.3.1.241',
    'http://schemas.microsoft.com/identity/claims/displayname',
    'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name',
  ],
  username: ['uid', 'urn:oid:0.9.2342.19200300.100.1.1', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/upn'],
  groups: [
    'groups',
    'memberOf',
    'urn:oid:1.3.6.1.4.1.5923.1.5.1.1',
    'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups',
    'http://schemas.xmlsoap.org/claims/Group',
  ],
});

export interface SamlSettings {
  idpEntityId: string;
  ssoUrl: string;
  ssoBinding: SsoBinding;
  sloUrl: string | null;
  /** PEM; a response is believed only when signed by one of these. */
  signingCertificates: string[];
  /** The metadata document these came from, as given. */
  metadataXml: string;
  /** Where the metadata is refreshed from (src/jobs/saml-metadata-job.ts); null: set from a file. */
  metadataUrl: string | null;
  /** ISO 8601: when the metadata was last read from metadataUrl. */
  metadataRefreshedAt: string | null;
  /** SAML Profiles 4.1.5: IdP-initiated ("unsolicited") responses are taken. Default: false. */
  allowUnsolicited: boolean;
  /** The attribute names the operator set, tried before the defaults. */
  attributes: Partial<AttributeMapping>;
}

const names: Shape<string[] | undefined> = optional(arrayOf(string));

const SETTINGS_V1: Shape<SamlSettings> = object<SamlSettings>({
  idpEntityId: string,
  ssoUrl: string,
  ssoBinding: oneOf(['redirect', 'post'] as const),
  sloUrl: nullable(string),
  signingCertificates: arrayOf(string),
  metadataXml: string,
  metadataUrl: nullable(string),
  metadataRefreshedAt: nullable(string),
  allowUnsolicited: boolean,
  attributes: (value, path) => {
    const read = object<Partial<AttributeMapping>>({
      email: names,
      given_name: names,
      family_name: names,
      name: names,
      username: names,
      groups: names,
    })(value, path);
    return Object.fromEntries(Object.entries(read).filter(([, v]) => v !== undefined));
  },
});

/** The shapes of connections.saml, version 1 written with `v`. */
export const STORED_SAML_SETTINGS: VersionedShapes<SamlSettings> = { 1: SETTINGS_V1 };

/** For each field, the operator's names first, then the defaults. */
export function attributeNames(settings: SamlSettings): AttributeMapping {
  const out = {} as AttributeMapping;
  for (const field of ATTRIBUTE_FIELDS) out[field] = [...new Set([...(settings.attributes[field] ?? []), ...DEFAULT_ATTRIBUTES[field]])];
  return out;
}
