// Idempotency-Key on creates (draft-ietf-httpapi-idempotency-key-header), the rule: a key is claimed for its owner
// before the create runs; the same key with the same request replays the first answer; the management API
// (src/http/admin-api/idempotency.ts) turns the other outcomes into problems.
import { claimIdempotencyKey, completeIdempotencyKey, findIdempotencyKey, releaseIdempotencyKey } from '../../storage/idempotency-keys.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

export interface CreateAnswer {
  status: number;
  body: Record<string, unknown>;
  /** The fields of `body` never stored for a replay (a secret shown once). */
  secretFields?: readonly string[];
}

export type IdempotentOutcome =
  | { kind: 'ran'; answer: CreateAnswer }
  | { kind: 'replayed'; status: number; body: unknown }
  /**
   * The key's first request is still running (or its claim was just released), or its stored answer is of a shape
   * this version does not read (`unreadable`, the reason): treated as absent, so the caller retries and may reach an
   * instance that reads it; the create is never run twice.
   */
  | { kind: 'in-use'; claimed: boolean; unreadable?: string }
  /** The key was used with another request. */
  | { kind: 'reused' };

/**
 * Runs `create` once per owner and key. A create that throws wrote nothing, so its key is released for a corrected
 * request; a secret in the answer is stored as `{field}_replayed_without_secret: true`, never valued.
 */
export async function createOnce(
  ctx: Pick<ProviderContext, 'db' | 'clock'>,
  owner: string,
  key: string,
  requestHash: string,
  create: () => Promise<CreateAnswer>,
): Promise<IdempotentOutcome> {
  const now = ctx.clock();
  if (await claimIdempotencyKey(ctx.db, { principal: owner, key, requestHash, now, expiresAt: addSeconds(now, IDEMPOTENCY_TTL_SECONDS) })) {
    let answer: CreateAnswer;
    try {
      answer = await create();
    } catch (err) {
      await releaseIdempotencyKey(ctx.db, owner, key);
      throw err;
    }
    const stored = { ...answer.body };
    for (const field of answer.secretFields ?? []) {
      if (field in stored) {
        delete stored[field];
        stored[`${field}_replayed_without_secret`] = true;
      }
    }
    await completeIdempotencyKey(ctx.db, owner, key, answer.status, stored);
    return { kind: 'ran', answer };
  }
  const found = await findIdempotencyKey(ctx.db, owner, key);
  if (!found) return { kind: 'in-use', claimed: false };
  if (found.request_hash !== requestHash) return { kind: 'reused' };
  if (found.status === null || found.response === null) return { kind: 'in-use', claimed: true };
  if (!found.response.ok) return { kind: 'in-use', claimed: false, unreadable: found.response.reason };
  return { kind: 'replayed', status: found.status, body: found.response.value };
}
