// A webhook subscription as the seed file's `webhooks` section and `npm run admin -- webhooks add` give it: each
// entry checked field by field, every problem named, no value echoed back that could be a secret.
import type { Config } from '../../config.js';
import { isLoopbackUrl } from '../../net/loopback.js';
import { storedUrlProblem, WITHOUT_CONFIGURATION } from '../../outbound/stored-url.js';
import { jwksUriRuleProblem } from '../clients/client-jwks.js';
import { ALL_EVENTS, isWebhookEventType, WEBHOOK_EVENT_TYPES } from './event-types.js';

export interface WebhookEntry {
  id: string;
  url: string;
  /** Event types (event-types.ts), or ["*"] for all. */
  events: string[];
  /** The HMAC key of the signatures; generated (and shown once) when absent from the command line. */
  secret?: string;
  description?: string;
  /** Default: true. A disabled subscription is kept but gets no new events. */
  enabled?: boolean;
  /** Only the events of this organization (its id or slug; issue 40). Default: every event. */
  organization?: string;
}

export const WEBHOOK_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** A secret shorter than this is refused: it is an HMAC key, and a guessable one lets anyone forge deliveries. */
export const WEBHOOK_SECRET_MIN_LENGTH = 32;
const FIELDS = new Set(['id', 'url', 'events', 'secret', 'description', 'enabled', 'organization']);

/**
 * The URL's form: https, or http on loopback; no credentials, no fragment. Its address: without the configuration
 * (the seed file), no literal address of this machine's or a private network but loopback; with it (the management
 * API, sso-admin), the rule of the delivery (webhook-url.ts), OUTBOUND_ALLOW_NETWORKS included. The delivery checks
 * the resolved addresses again.
 */
export function webhookUrlFormProblem(raw: unknown, config?: Pick<Config, 'issuer' | 'outbound'>): string | undefined {
  if (typeof raw !== 'string' || !URL.canParse(raw)) return 'url must be an absolute URL';
  const url = new URL(raw);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackUrl(url))) return 'url must use https (http only on loopback)';
  if (url.username || url.password || url.hash) return 'url must have no credentials and no fragment';
  const why = config ? jwksUriRuleProblem(config, raw) : storedUrlProblem(raw, WITHOUT_CONFIGURATION.policy, WITHOUT_CONFIGURATION.options);
  return why && `url ${why}`;
}

/**
 * Every problem of one entry; `secretRequired` for the seed file, whose secret the receiver must know already;
 * `config` where the configuration is known (its URL is then held to the delivery's rule).
 */
export function webhookEntryProblems(
  raw: unknown,
  options: { secretRequired: boolean; config?: Pick<Config, 'issuer' | 'outbound'> },
): string[] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return ['must be an object'];
  const e = raw as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(e)) if (!FIELDS.has(key)) problems.push(`unknown field "${key}"`);
  if (typeof e.id !== 'string' || !WEBHOOK_ID_PATTERN.test(e.id)) problems.push('id must be 1 to 63 lowercase letters, digits, "-" or "_"');
  const urlProblem = webhookUrlFormProblem(e.url, options.config);
  if (urlProblem) problems.push(urlProblem);
  if (!Array.isArray(e.events) || e.events.length === 0 || !e.events.every((v) => typeof v === 'string')) {
    problems.push(`events must be a non-empty list of event types (${WEBHOOK_EVENT_TYPES.join(', ')}) or "${ALL_EVENTS}"`);
  } else {
    for (const type of e.events as string[])
      if (type !== ALL_EVENTS && !isWebhookEventType(type))
        problems.push(`events: "${type}" is not an event type (${WEBHOOK_EVENT_TYPES.join(', ')})`);
    if (new Set(e.events).size !== e.events.length) problems.push('events must not repeat a type');
  }
  if (
    e.secret === undefined
      ? options.secretRequired
      : typeof e.secret !== 'string' || e.secret.length < WEBHOOK_SECRET_MIN_LENGTH || e.secret.length > 1024
  )
    problems.push(`secret must be ${WEBHOOK_SECRET_MIN_LENGTH} to 1024 characters`);
  if (e.description !== undefined && (typeof e.description !== 'string' || e.description.length > 200))
    problems.push('description must be at most 200 characters');
  if (e.enabled !== undefined && typeof e.enabled !== 'boolean') problems.push('enabled must be true or false');
  if (e.organization !== undefined && (typeof e.organization !== 'string' || e.organization === ''))
    problems.push('organization must be an organization id or slug');
  return problems;
}
