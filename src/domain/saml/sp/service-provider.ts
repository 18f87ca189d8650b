// node-saml configured as our service provider towards one connection's IdP (issue 39). node-saml signs the
// AuthnRequest (SAML Bindings §3.4.4.1, RSA-SHA256) and verifies responses: the XML signature with the connection's
// certificates only, by the reference that is the element it then reads (no wrapping), one assertion per response,
// the audience. We set the InResponseTo it accepts per request (the one request this browser started), and take the
// clock checks into our own hands (saml-response.ts) so that they run on the injected clock.
import type * as NodeSaml from '@node-saml/node-saml';
import type { CacheProvider, SAML, SamlConfig } from '@node-saml/node-saml';
import type { Connection } from '../../connections/connection.js';
import { samlAcsUrl, samlMetadataUrl } from './sp-urls.js';
import type { SamlKeyPair } from '../credentials.js';

/**
 * node-saml (with xml-crypto, xml-encryption and xmldom behind it) is loaded on a SAML connection's first use, not at
 * start-up: about 3 MiB of heap that every request's garbage collection would otherwise walk on a provider that may
 * have no SAML connection at all.
 */
let nodeSamlModule: Promise<typeof NodeSaml> | undefined;
export function loadNodeSaml(): Promise<typeof NodeSaml> {
  nodeSamlModule ??= import('@node-saml/node-saml');
  return nodeSamlModule;
}

const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';

/** A cache that knows exactly one request ID (or none): InResponseTo is valid only when it is that one. */
function oneRequestCache(requestId: string | null): CacheProvider {
  return {
    saveAsync: async () => null,
    getAsync: async (key) => (requestId !== null && key === requestId ? new Date(0).toISOString() : null),
    removeAsync: async () => null,
  };
}

export async function serviceProvider(
  issuer: string,
  connection: Connection,
  keys: { signing: SamlKeyPair; decryption?: SamlKeyPair | undefined },
  inResponseTo: { requestId: string | null; newRequestId?: string },
  postBinding = false,
): Promise<SAML> {
  const { SAML, ValidateInResponseTo } = await loadNodeSaml();
  const settings = connection.saml!;
  const entityId = samlMetadataUrl(issuer, connection.id);
  const config: SamlConfig = {
    issuer: entityId,
    callbackUrl: samlAcsUrl(issuer, connection.id),
    entryPoint: settings.ssoUrl,
    idpCert: settings.signingCertificates,
    audience: entityId,
    privateKey: keys.signing.privateKeyPem,
    publicCert: keys.signing.certificatePem,
    signatureAlgorithm: 'sha256',
    digestAlgorithm: 'sha256',
    ...(keys.decryption ? { decryptionPvk: keys.decryption.privateKeyPem } : {}),
    // SAML Profiles 4.1.4.2: a bearer assertion signed by the IdP; the response's own signature is not required.
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    // The clock checks are ours (saml-response.ts), on the injected clock.
    acceptedClockSkewMs: -1,
    // A request ID is known only for a solicited response; an unsolicited one must carry no InResponseTo at all.
    validateInResponseTo: ValidateInResponseTo.ifPresent,
    requestIdExpirationPeriodMs: Number.MAX_SAFE_INTEGER,
    cacheProvider: oneRequestCache(inResponseTo.requestId),
    identifierFormat: null,
    disableRequestedAuthnContext: true,
    // SAML Bindings §3.5.4: a message over HTTP-POST is the base64 of its XML, never deflated (node-saml deflates
    // unless told, and the same switch would stop the deflating §3.4.4.1 asks of a Redirect message).
    ...(postBinding ? { authnRequestBinding: 'HTTP-POST', skipRequestCompression: true } : {}),
    ...(inResponseTo.newRequestId !== undefined ? { generateUniqueId: () => inResponseTo.newRequestId! } : {}),
  };
  return new SAML(config);
}

/** Our SP metadata towards one connection's IdP (SAML Metadata §2.4.4), signed with our signing key. */
export async function serviceProviderMetadata(
  issuer: string,
  connectionId: string,
  keys: { signing: SamlKeyPair; published: string[]; decryption?: SamlKeyPair | undefined },
): Promise<string> {
  const { generateServiceProviderMetadata } = await loadNodeSaml();
  return generateServiceProviderMetadata({
    issuer: samlMetadataUrl(issuer, connectionId),
    callbackUrl: samlAcsUrl(issuer, connectionId),
    identifierFormat: PERSISTENT,
    wantAssertionsSigned: true,
    privateKey: keys.signing.privateKeyPem,
    publicCerts: keys.published,
    signatureAlgorithm: 'sha256',
    ...(keys.decryption ? { decryptionPvk: keys.decryption.privateKeyPem, decryptionCert: keys.decryption.certificatePem } : {}),
  });
}
