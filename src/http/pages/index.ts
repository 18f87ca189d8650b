// The people's pages at {BASE_URL}/sso: sign-in and consent, the second factor, sign-up, password reset, the account,
// upstream connections, device verification and the brand's stylesheet. Errors are OAuth errors, rendered as a page on
// a route marked html and as RFC 6749 5.2 JSON on the others (the passkey options the pages' scripts fetch).
import type { FastifyInstance } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import { UpstreamDirectory } from '../../domain/connections/upstream-directory.js';
import { oauthErrorHandler } from '../plugins/error-handler.js';
import accountRoutes from './account/account.js';
import accountConnectionRoutes from './account/connections.js';
import accountEmailRoutes from './account/email.js';
import accountPasswordRoutes from './account/password.js';
import brandingRoutes from './branding.js';
import connectionCallbackRoutes from './connection-callback.js';
import connectionLinkRoutes from './connection-link.js';
import connectionStartRoutes from './connection-start.js';
import connectionSamlRoutes from './connection-saml.js';
import type { SamlCredentials } from '../../domain/saml/credentials.js';
import deviceVerificationRoutes from './device-verification.js';
import interactionRoutes from './interaction.js';
import invitationRoutes from './invitation.js';
import passwordResetRoutes from './password-reset.js';
import secondFactorRoutes from './second-factor.js';
import signupRoutes from './signup.js';

export interface PagesOptions {
  ctx: ProviderContext;
  /** A page ended sessions that queued back-channel logouts: deliver them now. */
  onLogoutsQueued: () => void;
  /** A page queued a message (a code, a link): deliver it now. */
  onMessagesQueued: () => void;
  /** The SAML key pairs a saml connection signs its AuthnRequests and decrypts with; without them it cannot start. */
  samlCredentials?: SamlCredentials | undefined;
}

export default async function pageRoutes(app: FastifyInstance, opts: PagesOptions) {
  const { ctx, onLogoutsQueued, onMessagesQueued } = opts;
  const { config } = ctx;
  app.setErrorHandler(oauthErrorHandler(config));
  const upstream = new UpstreamDirectory(ctx, opts.samlCredentials);
  if (config.brand.color) await app.register(brandingRoutes, { color: config.brand.color });
  await app.register(interactionRoutes, { ctx, onMessagesQueued, upstream });
  await app.register(secondFactorRoutes, { ctx });
  await app.register(deviceVerificationRoutes, { ctx, onMessagesQueued });
  // Upstream connections (issue 19): the sign-in page's buttons, the redirect URI registered upstream, the link proof,
  // the account page's link and unlink.
  await app.register(connectionStartRoutes, { ctx, directory: upstream });
  await app.register(connectionCallbackRoutes, { ctx, directory: upstream });
  // SAML connections (issue 39): our SP metadata and the ACS.
  await app.register(connectionSamlRoutes, { ctx, directory: upstream });
  await app.register(connectionLinkRoutes, { ctx });
  await app.register(accountConnectionRoutes, { ctx, directory: upstream });
  await app.register(accountRoutes, { ctx, onLogoutsQueued, onMessagesQueued });
  await app.register(accountPasswordRoutes, { ctx, onLogoutsQueued, onMessagesQueued });
  await app.register(accountEmailRoutes, { ctx, onMessagesQueued });
  await app.register(passwordResetRoutes, { ctx, onLogoutsQueued, onMessagesQueued });
  // Organizations' invitations (issue 40): the mailed link, accepted by the invited address signed in.
  await app.register(invitationRoutes, { ctx });
  // Self-service sign-up: off (404) unless SIGNUP is open or invite.
  if (config.signup.mode !== 'off') await app.register(signupRoutes, { ctx, onMessagesQueued });
}
