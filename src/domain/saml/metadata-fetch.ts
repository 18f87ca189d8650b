// SAML metadata read from a URL through the guarded fetch (under the rule of an upstream's URLs: https, loopback only
// for a loopback issuer): a SAML connection's IdP metadata and a service provider's, on registration and refreshed.
import type { Config } from '../../config.js';
import { guardedFetch, OutboundError, systemOutbound, type OutboundDeps } from '../../outbound/guarded-fetch.js';
import { WITHOUT_CONFIGURATION } from '../../outbound/stored-url.js';
import { jwksUriPolicy } from '../clients/client-jwks.js';
import { SamlError } from './saml-error.js';
import { MAX_METADATA_BYTES } from './xml-reader.js';

const METADATA_TIMEOUT_MS = 10_000;

export interface SamlMetadataFetching {
  config: Pick<Config, 'issuer' | 'outbound'> | undefined;
  outbound: OutboundDeps | undefined;
}

/** GETs the metadata document at `raw`; throws SamlError('bad_metadata') naming the host and what went wrong. */
export async function fetchSamlMetadata(deps: SamlMetadataFetching, raw: string, maxBytes = MAX_METADATA_BYTES): Promise<string> {
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
        maxResponseBytes: maxBytes,
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
