// The provider as a SAML 2.0 identity provider (issue 39) at {issuer}/saml: its metadata, and (later) the single
// sign-on and logout endpoints that browsers carry messages to.
import type { FastifyInstance } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import type { SamlCredentials } from '../../domain/saml/credentials.js';
import samlMetadataRoutes from './metadata.js';
import samlSsoRoutes from './single-sign-on.js';
import samlSloRoutes from './single-logout.js';

export const SAML_PREFIX = '/saml';

export interface SamlOptions {
  ctx: ProviderContext;
  credentials: SamlCredentials;
  /** Sessions ended by a single logout queued back-channel logouts: deliver them now. */
  onLogoutsQueued: () => void;
}

export default async function samlRoutes(app: FastifyInstance, opts: SamlOptions) {
  await app.register(samlMetadataRoutes, { config: opts.ctx.config, credentials: opts.credentials });
  await app.register(samlSsoRoutes, { ctx: opts.ctx, credentials: opts.credentials });
  await app.register(samlSloRoutes, { ctx: opts.ctx, credentials: opts.credentials, onLogoutsQueued: opts.onLogoutsQueued });
}
