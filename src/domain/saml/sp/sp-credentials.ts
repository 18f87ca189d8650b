// The keys our service provider signs AuthnRequests with and decrypts assertions with: the shared core's
// SamlCredentials (src/domain/saml/credentials.ts), implemented by the identity-provider side and given to buildApp.
export type { SamlCredentials as SpCredentials, SamlKeyPair as SpKeyPair } from '../credentials.js';
