// The names SAML 2.0 messages and metadata are written in (SAML Core 2.0 §1.2, Bindings §3, Metadata §2), in one
// place so that readers and writers on both sides of the provider spell them alike.

export const NS = Object.freeze({
  protocol: 'urn:oasis:names:tc:SAML:2.0:protocol',
  assertion: 'urn:oasis:names:tc:SAML:2.0:assertion',
  metadata: 'urn:oasis:names:tc:SAML:2.0:metadata',
  xmldsig: 'http://www.w3.org/2000/09/xmldsig#',
  xmlenc: 'http://www.w3.org/2001/04/xmlenc#',
  xsi: 'http://www.w3.org/2001/XMLSchema-instance',
  xs: 'http://www.w3.org/2001/XMLSchema',
});

/** Bindings 2.0 §3.4 and §3.5: the two bindings a browser carries. */
export const BINDINGS = Object.freeze({
  redirect: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
  post: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
});
export type BindingName = keyof typeof BINDINGS;

/** The binding's short name for a binding URI this provider speaks, else undefined. */
export function bindingName(uri: string): BindingName | undefined {
  return (Object.keys(BINDINGS) as BindingName[]).find((name) => BINDINGS[name] === uri);
}

/** Core 2.0 §8.3: the NameID formats the provider issues and asks for. */
export const NAME_ID_FORMATS = Object.freeze({
  email: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  persistent: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  transient: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
  unspecified: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
});
export type NameIdFormatName = keyof typeof NAME_ID_FORMATS;

/** Core 2.0 §3.2.2.2: the status codes the provider answers with. */
export const STATUS = Object.freeze({
  success: 'urn:oasis:names:tc:SAML:2.0:status:Success',
  requester: 'urn:oasis:names:tc:SAML:2.0:status:Requester',
  responder: 'urn:oasis:names:tc:SAML:2.0:status:Responder',
  noPassive: 'urn:oasis:names:tc:SAML:2.0:status:NoPassive',
  authnFailed: 'urn:oasis:names:tc:SAML:2.0:status:AuthnFailed',
  requestDenied: 'urn:oasis:names:tc:SAML:2.0:status:RequestDenied',
  noAuthnContext: 'urn:oasis:names:tc:SAML:2.0:status:NoAuthnContext',
  partialLogout: 'urn:oasis:names:tc:SAML:2.0:status:PartialLogout',
});

/** SAML Authentication Context 2.0 §3.4: the classes a sign-in here can achieve. */
export const AUTHN_CONTEXT = Object.freeze({
  password: 'urn:oasis:names:tc:SAML:2.0:ac:classes:Password',
  passwordProtectedTransport: 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport',
  multiFactor: 'urn:oasis:names:tc:SAML:2.0:ac:classes:MultiFactor',
  unspecified: 'urn:oasis:names:tc:SAML:2.0:ac:classes:unspecified',
});

/** Core 2.0 §2.7.3.1: attribute names given as URIs. */
export const ATTRIBUTE_NAME_FORMATS = Object.freeze({
  uri: 'urn:oasis:names:tc:SAML:2.0:attrname-format:uri',
  basic: 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic',
  unspecified: 'urn:oasis:names:tc:SAML:2.0:attrname-format:unspecified',
});

/** XML Signature and Exclusive Canonicalization algorithm identifiers the provider signs with. */
export const ALGORITHMS = Object.freeze({
  rsaSha256: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  sha256: 'http://www.w3.org/2001/04/xmlenc#sha256',
  exclusiveC14n: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  envelopedSignature: 'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
});
