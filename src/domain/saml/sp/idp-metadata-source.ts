// Where a SAML connection's settings come from: the IdP's metadata given as a file, or read from its URL through the
// guarded fetch (under the rule of an upstream's URLs: https, loopback only for a loopback issuer), and refreshed.
import type { Config } from '../../../config.js';
import { guardedFetch, OutboundError, systemOutbound, type OutboundDeps } from '../../../outbound/guarded-fetch.js';
import { WITHOUT_CONFIGURATION } from '../../../outbound/stored-url.js';
import { jwksUriPolicy } from '../../clients/client-jwks.js';
import { METADATA_MAX_BYTES, readIdpMetadata } from './idp-metadata.js';
import { SamlError } from '../saml-error.js';
import type { SamlSettings } from './saml-settings.js';

const METADATA_TIMEOUT_MS = 10_000;

export interface SamlMetadataFetching {
  config: Pick<Config, 'issuer' | 'outbound'> | undefined;
  outbound: OutboundDeps | undefined;
}

/** GETs the metadata document at `raw`; throws SamlError('metadata') naming the host and what went wrong. */
export async function fetchIdpMetadata(deps: SamlMetadataFetching, raw: string): Promise<string> {
  const url = new URL(raw);
  const policy = deps.config ? jwksUriPolicy(deps.config, url) : WITHOUT_CONFIGURATION.policy;
  if (typeof policy === 'string') throw new SamlError('bad_metadata', `the metadata URL ${policy}`);
  let response;
  try {
    response = await guardedFetch(
      {
        url,
        method: 'GET',
        headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml' },
        timeoutMs: METADATA_TIMEOUT_MS,
        maxResponseBytes: METADATA_MAX_BYTES,
      },
      policy,
      deps.outbound ?? systemOutbound,
    );
  } catch (err) {
    if (err instanceof OutboundError)
      throw new SamlError('bad_metadata', `the metadata of host ${url.hostname} could not be read: ${err.message}`);
    throw err;
  }
  if (response.status !== 200) throw new SamlError('bad_metadata', `the metadata of host ${url.hostname} answered ${response.status}`);
  return response.body.toString('utf8');
}

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
