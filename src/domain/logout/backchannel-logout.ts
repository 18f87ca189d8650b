// Delivers queued logout tokens to the clients of an ended session (Back-Channel Logout 1.0, 2.5 and 2.8).
import { guardedFetch, OutboundError } from '../../outbound/guarded-fetch.js';
import { policyFor, type DestinationOwner } from '../../outbound/policy.js';
import { readClientRow } from '../../storage/clients.js';
import { claimDueLogouts, deleteLogout, rescheduleLogout, type ClaimedLogout } from '../../storage/backchannel-logouts.js';
import { rowToClient } from '../clients/clients.js';
import { CLIENT_METADATA } from '../clients/stored-client-metadata.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { LOGOUT_TOKEN_MAX_TTL_SECONDS, signLogoutToken } from './logout-token.js';

/** Posts one logout token; resolves when the client answered 200 or 204, rejects otherwise. */
export type LogoutSender = (uri: string, logoutToken: string, timeoutMs: number, owner: DestinationOwner) => Promise<void>;

export type DeliveryOutcome =
  | { clientId: string; outcome: 'delivered'; attempts: number }
  | { clientId: string; outcome: 'retry' | 'gave-up'; attempts: number; reason: string };

/** 2.8 asks for no body; a client that answers with more than this is cut off. */
const RESPONSE_MAX_BYTES = 64 * 1024;

/** Deliveries handled per claim; the rest wait for the next round. */
export const DELIVERY_BATCH_SIZE = 20;

/**
 * Back-Channel Logout 1.0 2.5: "The OP sends an HTTP POST request containing the Logout Token to each RP's
 * back-channel logout URI" with "Content-Type application/x-www-form-urlencoded". A redirect is not followed
 * (2.8 lets the RP answer only 200 or 204, or 400 on error), and the wait is bounded. The URI of a client that
 * registered itself must be https on a public address (src/outbound/policy.ts).
 */
export function guardedLogoutSender(ctx: Pick<ProviderContext, 'config' | 'outbound'>): LogoutSender {
  return async (uri, logoutToken, timeoutMs, owner) => {
    const request = {
      url: uri,
      method: 'POST' as const,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logout_token: logoutToken }).toString(),
      timeoutMs,
      maxResponseBytes: RESPONSE_MAX_BYTES,
    };
    const response = await guardedFetch(request, policyFor(ctx.config, owner), ctx.outbound);
    if (response.status !== 200 && response.status !== 204) throw new Error(`the client answered ${response.status}`);
  };
}

/**
 * Sends every delivery that is due (one batch per call while any are due): a new logout token per attempt, signed
 * with the client's ID token algorithm. A failed attempt is retried after retrySeconds, doubling each time, until
 * maxAttempts; then it is given up. Returns what happened to each, for the caller to log.
 */
export async function deliverDueLogouts(ctx: ProviderContext, send: LogoutSender = guardedLogoutSender(ctx)): Promise<DeliveryOutcome[]> {
  const settings = ctx.config.backchannelLogout;
  const outcomes: DeliveryOutcome[] = [];
  for (;;) {
    const now = ctx.clock();
    // The lease outlasts the POST's timeout, so a slow delivery is not claimed twice.
    const claimed = await claimDueLogouts(ctx.db, now, addSeconds(now, settings.timeoutSeconds * 2 + 5), DELIVERY_BATCH_SIZE);
    outcomes.push(...(await Promise.all(claimed.map((c) => deliverOne(ctx, c, send)))));
    if (claimed.length < DELIVERY_BATCH_SIZE) return outcomes;
  }
}

async function deliverOne(ctx: ProviderContext, delivery: ClaimedLogout, send: LogoutSender): Promise<DeliveryOutcome> {
  const settings = ctx.config.backchannelLogout;
  const { attempts } = delivery;
  const read = readClientRow(delivery.client, CLIENT_METADATA);
  if (!read.readable) {
    // A client whose metadata this version does not read: tried again later, by an instance that reads it.
    const reason = `the client cannot be read (${read.reason})`;
    if (attempts >= settings.maxAttempts) {
      await deleteLogout(ctx.db, delivery.id);
      return { clientId: read.clientId, outcome: 'gave-up', attempts, reason };
    }
    await rescheduleLogout(ctx.db, delivery.id, addSeconds(ctx.clock(), settings.retrySeconds * 2 ** (attempts - 1)));
    return { clientId: read.clientId, outcome: 'retry', attempts, reason };
  }
  const client = rowToClient(read.row);
  const { clientId } = client;
  try {
    if (client.backchannelLogoutUri === null) throw new Error('the client no longer has a backchannel_logout_uri');
    const now = ctx.clock();
    const token = await signLogoutToken(ctx.keys, {
      issuer: ctx.config.issuer,
      audience: clientId,
      // The sub this client knows the user by (OIDC Core 8.1), as in its ID tokens.
      subject: ctx.subjects.subjectFor(client.pairwiseSector, delivery.sub),
      sid: delivery.sid,
      alg: client.idTokenSignedResponseAlg,
      now,
      ttlSeconds: Math.min(LOGOUT_TOKEN_MAX_TTL_SECONDS, ctx.config.idTokenTtlSeconds),
    });
    await send(client.backchannelLogoutUri, token, settings.timeoutSeconds * 1000, client.selfRegistered ? 'self-registered' : 'operator');
    await deleteLogout(ctx.db, delivery.id);
    return { clientId, outcome: 'delivered', attempts };
  } catch (err) {
    const reason = describe(err);
    // A refused destination is not tried again: the rules that refused it will refuse it the next time.
    if (attempts >= settings.maxAttempts || client.backchannelLogoutUri === null || isRefusal(err)) {
      await deleteLogout(ctx.db, delivery.id);
      return { clientId, outcome: 'gave-up', attempts, reason };
    }
    await rescheduleLogout(ctx.db, delivery.id, addSeconds(ctx.clock(), settings.retrySeconds * 2 ** (attempts - 1)));
    return { clientId, outcome: 'retry', attempts, reason };
  }
}

function isRefusal(err: unknown): boolean {
  return err instanceof OutboundError && (err.code === 'refused-address' || err.code === 'scheme' || err.code === 'bad-url');
}

/** Why a POST failed, in words that hold no token (the URI is the client's registered one, not a secret). */
function describe(err: unknown): string {
  if (isRefusal(err)) return `refused: ${(err as Error).message}`;
  // An OutboundError names the host and the cause (a timeout, ECONNREFUSED, ENOTFOUND...), never the body.
  return err instanceof Error ? err.message : 'unknown failure';
}
