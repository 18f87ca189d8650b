// A service provider's SAML metadata for the identity provider's tests: its entityID, ACS endpoints, and a signing
// certificate of a key pair made once per process (the SP side of the tests signs AuthnRequests with it).
import { generateSamlKey, type GeneratedSamlKey } from '../../../src/domain/keys/saml-keys.js';
import { pemBody } from '../../../src/domain/saml/idp/idp-metadata.js';

let spKey: Promise<GeneratedSamlKey> | undefined;

/** The test SP's key pair and self-signed certificate. */
export function testSpKey(): Promise<GeneratedSamlKey> {
  return (spKey ??= generateSamlKey('https://sp.example.test', new Date()));
}

export interface SpMetadataOptions {
  entityId?: string;
  acs?: Array<{ location: string; binding?: 'post' | 'redirect'; index?: number; isDefault?: boolean }>;
  authnRequestsSigned?: boolean;
  wantAssertionsSigned?: boolean;
  /** Leave the signing certificate out. */
  noCertificate?: boolean;
  /** A SingleLogoutService at this address, */
  slo?: string;
  /** in these bindings, in this order (default HTTP-Redirect only). */
  sloBindings?: ReadonlyArray<'post' | 'redirect'>;
}

export const SP_ENTITY_ID = 'https://sp.example.test/saml';
export const SP_ACS = 'https://sp.example.test/saml/acs';

const BINDING = {
  post: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
  redirect: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
};

export async function spMetadata(options: SpMetadataOptions = {}): Promise<string> {
  const key = await testSpKey();
  const acs = options.acs ?? [{ location: SP_ACS, index: 0, isDefault: true }];
  const keyDescriptor = options.noCertificate
    ? ''
    : `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${pemBody(key.certificatePem)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`;
  return `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${options.entityId ?? SP_ENTITY_ID}">
  <md:SPSSODescriptor AuthnRequestsSigned="${options.authnRequestsSigned ?? false}" WantAssertionsSigned="${options.wantAssertionsSigned ?? true}" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    ${keyDescriptor}
${(options.slo ? (options.sloBindings ?? ['redirect']) : [])
  .map((binding) => `    <md:SingleLogoutService Binding="${BINDING[binding]}" Location="${options.slo}"/>\n`)
  .join('')}    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
${acs
  .map(
    (a, i) =>
      `    <md:AssertionConsumerService Binding="${BINDING[a.binding ?? 'post']}" Location="${a.location}" index="${a.index ?? i}"${a.isDefault ? ' isDefault="true"' : ''}/>`,
  )
  .join('\n')}
  </md:SPSSODescriptor>
</md:EntityDescriptor>
`;
}
