// node-saml as the service provider of the identity provider's tests: SP_ENTITY_ID with its ACS SP_ACS, trusting our
// IdP signing certificate, wanting the Response and its assertion signed and InResponseTo checked (SAML Profiles 2.0
// §4.1.4.3), its AuthnRequests sent to our SSO endpoint.
import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import { SP_ACS, SP_ENTITY_ID } from './sp-metadata.js';

/** Our Web Browser SSO endpoint on the test issuer. */
export const IDP_SSO_URL = 'http://localhost:3000/sso/saml/sso';

export type NodeSamlOptions = Partial<ConstructorParameters<typeof SAML>[0]>;

export function nodeSamlSp(idpCert: string, options: NodeSamlOptions = {}): SAML {
  return new SAML({
    entryPoint: IDP_SSO_URL,
    idpCert,
    issuer: SP_ENTITY_ID,
    callbackUrl: SP_ACS,
    audience: SP_ENTITY_ID,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: true,
    validateInResponseTo: ValidateInResponseTo.always,
    identifierFormat: null,
    ...options,
  });
}
