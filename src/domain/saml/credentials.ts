// The provider's own SAML key pairs as both sides of SAML use them: the identity provider signs responses, the
// service provider (a `saml` connection) signs AuthnRequests and decrypts assertions encrypted for it.

export interface SamlKeyPair {
  privateKeyPem: string;
  certificatePem: string;
}

export interface SamlCredentials {
  /** The key pair that signs now (IdP responses, SP AuthnRequests and logout messages). */
  signing(): Promise<SamlKeyPair>;
  /** Every certificate metadata publishes: the signing one and, during a rotation's overlap, the next/previous. */
  published(): Promise<string[]>;
  /** Every private key an encrypted assertion sent to us may be encrypted for (current first). */
  decryption(): Promise<SamlKeyPair[]>;
}
