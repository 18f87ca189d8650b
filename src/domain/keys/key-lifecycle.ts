// When each signing key signs and when it is published, derived from the activation times alone, so that every
// instance reaches the same answer from the same rows without anyone writing at the moment of a switch.
import type { SigningAlg } from './signing-algs.js';

export type KeyState = 'pending' | 'active' | 'retired' | 'expired';

export interface KeyTimes {
  kid: string;
  alg: SigningAlg;
  createdAt: Date;
  /** Signs from this time on (published from createdAt). */
  activatesAt: Date;
  /** When the next key of its algorithm activates; null while none is scheduled. */
  retiresAt: Date | null;
  /** When it leaves the JWKS: every token it signed has expired by then. */
  unpublishesAt: Date | null;
}

export interface KeyRowTimes {
  kid: string;
  alg: string;
  created_at: Date;
  activates_at: Date;
}

function byActivation(a: KeyRowTimes, b: KeyRowTimes): number {
  return (
    a.activates_at.getTime() - b.activates_at.getTime() ||
    a.created_at.getTime() - b.created_at.getTime() ||
    (a.kid < b.kid ? -1 : a.kid > b.kid ? 1 : 0)
  );
}

/**
 * Per algorithm, keys sign in order of activation: each retires when the next activates, and stays published for
 * `retentionSeconds` more (the ID token lifetime, plus the time an instance may take to see its successor).
 */
export function keyTimeline(rows: readonly KeyRowTimes[], retentionSeconds: number): KeyTimes[] {
  const byAlg = new Map<string, KeyRowTimes[]>();
  for (const row of rows) byAlg.set(row.alg, [...(byAlg.get(row.alg) ?? []), row]);
  const timeline: KeyTimes[] = [];
  for (const [alg, keys] of byAlg) {
    keys.sort(byActivation);
    keys.forEach((row, i) => {
      const next = keys[i + 1];
      const retiresAt = next ? next.activates_at : null;
      timeline.push({
        kid: row.kid,
        alg: alg as SigningAlg,
        createdAt: row.created_at,
        activatesAt: row.activates_at,
        retiresAt,
        unpublishesAt: retiresAt && new Date(retiresAt.getTime() + retentionSeconds * 1000),
      });
    });
  }
  return timeline;
}

export function keyState(key: KeyTimes, now: Date): KeyState {
  const t = now.getTime();
  if (t < key.activatesAt.getTime()) return 'pending';
  if (key.retiresAt === null || t < key.retiresAt.getTime()) return 'active';
  if (key.unpublishesAt !== null && t < key.unpublishesAt.getTime()) return 'retired';
  return 'expired';
}

/** Pending, active and retired keys are in the JWKS; expired ones are not. */
export function isPublished(key: KeyTimes, now: Date): boolean {
  return key.unpublishesAt === null || now.getTime() < key.unpublishesAt.getTime();
}

/** Keys that sign now or will: the active one and the pending ones. */
export function maySign(key: KeyTimes, now: Date): boolean {
  return key.retiresAt === null || now.getTime() < key.retiresAt.getTime();
}
