// PLACEHOLDER until the lead's core lands on main (saml-shared.md); replaced by main's file at merge.
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
