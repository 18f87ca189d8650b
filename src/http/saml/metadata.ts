// GET {issuer}/saml/metadata: the identity provider's metadata (SAML Metadata 2.0 §2.4.3), with every published
// signing certificate, so that a rotation shows here from the moment the new key is added.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import type { SamlCredentials } from '../../domain/saml/credentials.js';
import { idpMetadataXml, METADATA_CONTENT_TYPE } from '../../domain/saml/idp/idp-metadata.js';

/** Service providers fetch metadata rarely; an hour keeps a rotation's overlap (KEY_ACTIVATION_DELAY_SECONDS) ahead of it. */
const METADATA_MAX_AGE_SECONDS = 3600;

export default async function samlMetadataRoutes(app: FastifyInstance, opts: { config: Config; credentials: SamlCredentials }) {
  const { config, credentials } = opts;
  app.get('/metadata', async (_request, reply) => {
    const xml = idpMetadataXml({
      issuer: config.issuer,
      ssoUrl: `${config.issuer}/saml/sso`,
      sloUrl: `${config.issuer}/saml/slo`,
      certificates: await credentials.published(),
      // Whether a request must be signed is each service provider's own (its AuthnRequestsSigned): not demanded of all.
      wantAuthnRequestsSigned: false,
    });
    return reply
      .header('content-type', `${METADATA_CONTENT_TYPE}; charset=utf-8`)
      .header('cache-control', `public, max-age=${METADATA_MAX_AGE_SECONDS}`)
      .send(xml);
  });
}
