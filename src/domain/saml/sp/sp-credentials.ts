// The keys our service provider signs AuthnRequests with and decrypts assertions with: the shape of SamlCredentials
// (src/domain/saml/credentials.ts, the shared core's, implemented by the identity-provider side), restated here so
// that the connection code depends on nothing but these three calls.
export interface SpKeyPair {
  privateKeyPem: string;
  certificatePem: string;
}

export interface SpCredentials {
  signing(): Promise<SpKeyPair>;
  published(): Promise<string[]>;
  decryption(): Promise<SpKeyPair[]>;
}
