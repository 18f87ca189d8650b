// Where a SAML connection's settings come from: the IdP's metadata given as a file, or read from its URL
// (src/domain/saml/metadata-fetch.ts), and refreshed.
import { readIdpMetadata } from './idp-metadata.js';
import type { SamlSettings } from './saml-settings.js';

/** The settings `xml` gives, with the operator's choices; throws SamlError when the metadata does not serve. */
export function samlSettingsFrom(
  xml: string,
  choices: {
    metadataUrl: string | null;
    refreshedAt: Date | null;
    allowUnsolicited: boolean;
    attributes: SamlSettings['attributes'];
  },
): SamlSettings {
  const idp = readIdpMetadata(xml);
  return {
    idpEntityId: idp.entityId,
    ssoUrl: idp.ssoUrl,
    ssoBinding: idp.ssoBinding,
    sloUrl: idp.sloUrl,
    signingCertificates: idp.signingCertificates,
    metadataXml: xml,
    metadataUrl: choices.metadataUrl,
    metadataRefreshedAt: choices.refreshedAt?.toISOString() ?? null,
    allowUnsolicited: choices.allowUnsolicited,
    attributes: choices.attributes,
  };
}
