// buildApp(config, deps): the Fastify instance with every plugin and route wired from its arguments.
// It never listens; src/server.ts does.
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { isLoopbackUrl, ROUTES_PREFIX, type Config } from './config.js';
import { systemClock, type Clock } from './domain/clock.js';
import type { ProviderContext } from './domain/context.js';
import { logNotifier, type Notifier } from './domain/notifications/notifier.js';
import { smtpNotifier } from './domain/notifications/smtp-notifier.js';
import { webhookNotifier } from './domain/notifications/webhook-notifier.js';
import { createProviderContext } from './domain/provider-context.js';
import { readinessProbe, type Lifecycle } from './domain/readiness.js';
import adminApi, { ADMIN_API_ROOT } from './http/admin-api/index.js';
import scimApi, { SCIM_PREFIX } from './http/scim/index.js';
import samlRoutes, { SAML_PREFIX } from './http/saml/index.js';
import { StoredSamlCredentials } from './domain/keys/saml-keys.js';
import type { SamlCredentials } from './domain/saml/credentials.js';
import consoleRoutes, { CONSOLE_PREFIX } from './http/console/index.js';
import { requestLogger } from './http/request-logger.js';
import { clientErrorHandler } from './http/client-error.js';
import { parseForm } from './http/form-parser.js';
import cors from './http/plugins/cors.js';
import errorHandler from './http/plugins/error-handler.js';
import requestLog from './http/plugins/request-log.js';
import requestMetrics from './http/plugins/request-metrics.js';
import securityHeaders, { strictTransportSecurity } from './http/plugins/security-headers.js';
import healthRoutes from './http/operations/health.js';
import pageRoutes from './http/pages/index.js';
import protocolRoutes from './http/protocol/index.js';
import metricsRoutes from './http/operations/metrics.js';
import { lazySchemaCompilers, type LazySchemaCompilers } from './http/lazy-schema-compilers.js';
import { startBackchannelLogoutJob, type BackchannelLogoutJob } from './jobs/backchannel-logout-job.js';
import { startOutboxJob, type OutboxJob } from './jobs/outbox-job.js';
import { purgeRetention, startPurgeJob, type PurgeJob } from './jobs/purge-job.js';
import { startWebhookJob, type WebhookJob } from './jobs/webhook-job.js';
import { startSamlMetadataJob, type SamlMetadataJob } from './jobs/saml-metadata-job.js';
import { startOrganizationDomainsJob, type OrganizationDomainsJob } from './jobs/organization-domains-job.js';
import type { Metrics } from './metrics.js';
import type { TxtLookup } from './outbound/dns-txt.js';
import type { OutboundDeps } from './outbound/guarded-fetch.js';
import type { Db, PoolStats } from './storage/database.js';
import type { Listen } from './storage/listen.js';
import { shippedMigrations } from './storage/migrate.js';

export interface AppDeps {
  db: Db;
  logger: FastifyBaseLogger;
  clock?: Clock;
  /** Delivers one-time codes and notices; null leaves them in the outbox. Defaults to NOTIFIER. */
  notifier?: Notifier | null;
  /** Flipped by the server when a signal asks it to stop (readiness fails from then on); else app.close() flips it. */
  lifecycle?: Lifecycle;
  /** The database pool's state, for the sso_db_pool_* gauges. */
  poolStats?: () => PoolStats;
  /** The instance's metrics, when the caller serves them elsewhere too (METRICS_PORT); else the app makes its own. */
  metrics?: Metrics;
  /** How requests to clients and relays resolve names and which extra CAs they trust; the system's unless told. */
  outbound?: OutboundDeps;
  /** TXT lookups (organizations' domains, issue 40); DNS_RESOLVERS's servers unless told. */
  dns?: TxtLookup;
  /** Compiles the routes' schemas on first use (http/lazy-schema-compilers.ts); a test passes its own to compile them all. */
  schemaCompilers?: LazySchemaCompilers;
  /** LISTEN on the database (DatabaseHandle.listen): wakes the webhook deliveries as they are queued; else they poll. */
  listen?: Listen;
  /**
   * The provider's SAML key pairs (issue 39): they sign the identity provider's responses, a SAML connection's
   * AuthnRequests, and decrypt its assertions; the database's, sealed and rotated (domain/keys/saml-keys.ts), unless told.
   */
  samlCredentials?: SamlCredentials;
}

/** How long /readyz waits for the database before it counts as down (keep probe timeouts above it). */
const READINESS_DB_TIMEOUT_MS = 2000;

/** Token requests and sign-in forms are small; anything larger is refused before it is parsed. */
const BODY_LIMIT_BYTES = 64 * 1024;

export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const clock = deps.clock ?? systemClock;
  const ctx = await createProviderContext({
    config,
    db: deps.db,
    clock,
    log: deps.logger,
    metrics: deps.metrics,
    outbound: deps.outbound,
    dns: deps.dns,
  });
  // Made on first use (a SAML request), so that a provider without SAML never makes one.
  const samlCredentials = deps.samlCredentials ?? new StoredSamlCredentials(ctx);

  const app = Fastify({
    loggerInstance: deps.logger,
    // Fastify's two lines per request are replaced by the one line of http/plugins/request-log.ts.
    logController: new LogController({ disableRequestLogging: true }),
    // request.log is made when a request first writes to it (http/request-logger.ts).
    childLoggerFactory: requestLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    // The issuer and every URL come from configuration, never from the Host header (nor X-Forwarded-Host).
    // TRUST_PROXY only decides which X-Forwarded-For address counts as the client's (request.ip).
    trustProxy: trustProxyOption(config.operations.trustProxy),
    // On shutdown idle keep-alive connections are closed; a request already on a connection is served (with
    // Connection: close, so that the client reconnects elsewhere) rather than refused with a 503.
    forceCloseConnections: 'idle',
    return503OnClosing: false,
    // A URL or headers too large for Node's parser get an OAuth error body too.
    clientErrorHandler,
    schemaController: { compilersFactory: (deps.schemaCompilers ?? lazySchemaCompilers()).compilersFactory },
  });
  const lifecycle = deps.lifecycle ?? { shuttingDown: false };
  app.addHook('preClose', async () => {
    lifecycle.shuttingDown = true;
  });
  if (deps.poolStats) {
    const unwatch = ctx.metrics.watchDatabasePool(deps.poolStats);
    app.addHook('onClose', async () => unwatch());
  }
  app.decorateRequest('client', null);
  app.addHook('onClose', async () => ctx.keys.close());
  if (config.purgeIntervalSeconds > 0) {
    let purge: PurgeJob | undefined;
    app.addHook('onReady', async () => {
      purge = startPurgeJob({
        db: deps.db,
        clock,
        logger: deps.logger,
        intervalSeconds: config.purgeIntervalSeconds,
        retention: purgeRetention(config),
      });
    });
    app.addHook('onClose', async () => purge?.stop());
  }

  // One-time codes and notices: the deployment's notifier, else the configured built-in one.
  const notifier = deps.notifier !== undefined ? deps.notifier : builtInNotifier(ctx, config);
  let outbox: OutboxJob | undefined;
  if (notifier) {
    app.addHook('onReady', async () => {
      outbox = startOutboxJob(ctx, notifier);
    });
    app.addHook('onClose', async () => outbox?.stop());
  }

  // SAML connections' IdP metadata, refreshed from its URL (issue 39).
  let samlMetadata: SamlMetadataJob | undefined;
  app.addHook('onReady', async () => {
    samlMetadata = startSamlMetadataJob(ctx);
  });
  app.addHook('onClose', async () => samlMetadata?.stop());

  // Organizations' verified domains, their TXT records checked again (issue 40).
  let organizationDomains: OrganizationDomainsJob | undefined;
  app.addHook('onReady', async () => {
    organizationDomains = startOrganizationDomainsJob(ctx);
  });
  app.addHook('onClose', async () => organizationDomains?.stop());

  let backchannel: BackchannelLogoutJob | undefined;
  app.addHook('onReady', async () => {
    backchannel = startBackchannelLogoutJob(ctx, deps.logger);
  });
  app.addHook('onClose', async () => backchannel?.stop());

  // Webhook deliveries (issue 20); WEBHOOK_POLL_SECONDS=0 leaves them to other instances (or a test's own rounds).
  if (config.webhookPollSeconds > 0) {
    let webhooks: WebhookJob | undefined;
    app.addHook('onReady', async () => {
      webhooks = startWebhookJob(ctx, { listen: deps.listen });
    });
    app.addHook('onClose', async () => webhooks?.stop());
  }

  await app.register(errorHandler, { page: config });
  await app.register(requestMetrics, { histogram: ctx.metrics.httpRequestDuration });
  await app.register(requestLog);
  await app.register(securityHeaders, {
    strictTransportSecurity: strictTransportSecurity(config.issuer, config.operations.hstsMaxAgeSeconds),
  });
  await app.register(cors);
  await app.register(cookie);
  // Every POST endpoint takes form serialization only (RFC 6749 3.2, RFC 6750 2.2, OIDC Core 3.1.2.1):
  // without Fastify's JSON and text parsers, any other body is refused as invalid_request.
  app.removeAllContentTypeParsers();
  await app.register(formbody, { parser: parseForm, bodyLimit: BODY_LIMIT_BYTES });

  // The protocol endpoints and the people's pages share {BASE_URL}/sso; each surface answers its own errors.
  await app.register(protocolRoutes, { prefix: ROUTES_PREFIX, ctx, onLogoutsQueued: () => backchannel?.kick() });
  await app.register(pageRoutes, {
    prefix: ROUTES_PREFIX,
    ctx,
    onLogoutsQueued: () => backchannel?.kick(),
    onMessagesQueued: () => outbox?.kick(),
    samlCredentials,
  });
  // The provider as a SAML 2.0 identity provider (issue 39): metadata, single sign-on and logout at {issuer}/saml.
  await app.register(samlRoutes, {
    prefix: `${ROUTES_PREFIX}${SAML_PREFIX}`,
    ctx,
    credentials: samlCredentials,
    onLogoutsQueued: () => backchannel?.kick(),
  });
  // The management API (issue 20): JSON, RFC 9457 problems, client_credentials tokens with admin:read / admin:write.
  await app.register(adminApi, { prefix: ADMIN_API_ROOT, ctx, bodyLimit: BODY_LIMIT_BYTES });
  // SCIM 2.0 provisioning (issue 20): application/scim+json, RFC 7644 3.12 errors, client_credentials tokens with scim.
  await app.register(scimApi, { prefix: SCIM_PREFIX, ctx, bodyLimit: BODY_LIMIT_BYTES });
  // The web console (issue 20, docs/console.md): pages for admins and auditors, signed in through this provider.
  await app.register(consoleRoutes, {
    prefix: CONSOLE_PREFIX,
    ctx,
    onLogoutsQueued: () => backchannel?.kick(),
    onMessagesQueued: () => outbox?.kick(),
  });
  await app.register(healthRoutes, {
    readiness: readinessProbe({ db: deps.db, keys: ctx.keys, lifecycle, shipped: shippedMigrations(), timeoutMs: READINESS_DB_TIMEOUT_MS }),
  });
  // With METRICS_PORT set, /metrics is served there only (src/server.ts). On the main port: behind METRICS_TOKEN, or
  // open on a development (loopback) issuer only; a public issuer without the token does not serve it (404).
  const { metricsPort, metricsToken } = config.operations;
  if (metricsPort === undefined && (metricsToken !== undefined || isLoopbackUrl(new URL(config.baseUrl)))) {
    await app.register(metricsRoutes, { source: ctx.metrics.registry, token: metricsToken });
  }
  return app;
}

/** TRUST_PROXY for Fastify: a list of proxies' addresses, or N hops (the function Fastify itself makes of a number). */
function trustProxyOption(trust: Config['operations']['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return [...trust];
}

/** NOTIFIER: the log (development), the mail server, the webhook relay, or none (messages stay in the outbox). */
function builtInNotifier(ctx: ProviderContext, config: Config): Notifier | null {
  if (config.notifier === 'log') return logNotifier(ctx);
  if (config.notifier === 'smtp' && config.notifierSmtp) return smtpNotifier(ctx, config.notifierSmtp);
  if (config.notifier === 'webhook' && config.notifierWebhook) return webhookNotifier(ctx, config.notifierWebhook);
  return null;
}
