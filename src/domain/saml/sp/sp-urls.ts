// Our service provider's addresses for one SAML connection (issue 39): its metadata URL, which is also our entityID
// towards that IdP (SAML Metadata §2.3.2), and its AssertionConsumerService (HTTP-POST).
export function samlMetadataUrl(issuer: string, connectionId: string): string {
  return `${issuer}/connections/${connectionId}/saml/metadata`;
}

export function samlAcsUrl(issuer: string, connectionId: string): string {
  return `${issuer}/connections/${connectionId}/saml/acs`;
}
