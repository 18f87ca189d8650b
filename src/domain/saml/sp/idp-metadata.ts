// An identity provider's SAML metadata (SAML Metadata 2.0 §2.3.2, §2.4.3) read for a connection: its entityID, the
// SingleSignOnService we send AuthnRequests to (HTTP-Redirect, else HTTP-POST), its SingleLogoutService,
// and the certificates of its signing KeyDescriptors, each checked by node:crypto. Nothing else in it is believed.
import { isLoopbackUrl } from '../../../net/loopback.js';
import { readEntityMetadata } from '../metadata-reader.js';
import { SamlError } from '../saml-error.js';

/** An IdP's metadata document is small; one of a federation's aggregates is not a connection's. */
export const METADATA_MAX_BYTES = 512 * 1024;
const MAX_CERTIFICATES = 10;

export type SsoBinding = 'redirect' | 'post';

export interface IdpMetadata {
  entityId: string;
  ssoUrl: string;
  ssoBinding: SsoBinding;
  sloUrl: string | null;
  /** PEM, each a certificate node:crypto reads. */
  signingCertificates: string[];
}

function httpsOrLoopback(value: string | null, what: string): string {
  let url: URL;
  try {
    url = new URL(value ?? '');
  } catch {
    throw new SamlError('bad_metadata', `${what} is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackUrl(url)))
    throw new SamlError('bad_metadata', `${what} must use https`);
  return url.href;
}

/** Reads the IdP role of `xml` with the shared metadata reader; throws SamlError naming what is missing. */
export function readIdpMetadata(xml: string): IdpMetadata {
  let entity;
  try {
    entity = readEntityMetadata(xml);
  } catch (err) {
    if (err instanceof SamlError) throw new SamlError('bad_metadata', err.message);
    throw err;
  }
  const idp = entity.identityProvider;
  if (!idp) throw new SamlError('bad_metadata', 'the entity has no SAML 2.0 IDPSSODescriptor');
  // Our AuthnRequests go over HTTP-Redirect (Bindings 3.4) where the IdP offers it, the shorter trip; an IdP that
  // takes them over HTTP-POST only (Bindings 3.5) is sent an XML-signed request in an auto-submitted form.
  const sso = idp.singleSignOnServices.find((e) => e.binding === 'redirect') ?? idp.singleSignOnServices.find((e) => e.binding === 'post');
  if (!sso) throw new SamlError('bad_metadata', 'the IdP has no SingleSignOnService with the HTTP-Redirect or HTTP-POST binding');
  const slo = idp.singleLogoutServices.find((e) => e.binding === 'redirect');
  if (idp.signingCertificates.length === 0) throw new SamlError('bad_metadata', 'the IdP publishes no signing certificate');
  if (idp.signingCertificates.length > MAX_CERTIFICATES) throw new SamlError('bad_metadata', 'the IdP publishes too many certificates');
  return {
    entityId: entity.entityId,
    ssoUrl: httpsOrLoopback(sso.location, 'the SingleSignOnService Location'),
    ssoBinding: sso.binding,
    sloUrl: slo ? httpsOrLoopback(slo.location, 'the SingleLogoutService Location') : null,
    signingCertificates: [...new Set(idp.signingCertificates)],
  };
}
