// Replays the eval's traffic through the real sign-in functions on a real database, in virtual time: one attempt
// at a time, in time order across all actors, each verdict recorded with the evaluation's own timing.
import { sql } from 'kysely';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import type { Config } from '../../src/config.js';
import type { ProviderContext } from '../../src/domain/context.js';
import { createProviderContext } from '../../src/domain/provider-context.js';
import { signInWithPassword } from '../../src/domain/accounts/password-sign-in.js';
import type { RiskAction, RiskReason } from '../../src/domain/risk/verdict.js';
import { SECOND_FACTOR_AMR } from '../../src/domain/accounts/second-factor.js';
import { applySeed } from '../../src/domain/admin/seed.js';
import { completeSignIn } from '../../src/domain/accounts/sign-in-completion.js';
import type { Db } from '../../src/storage/database.js';
import { Random } from './population.js';
import {
  buildActors,
  DAY,
  syntheticUsers,
  type Actor,
  type EvalScale,
  type ScenarioName,
  type Step,
  type StepResult,
  type World,
} from './scenarios.js';

/** One attempt as replayed: what was tried, what the provider decided, and how long the evaluation took. */
export interface AttemptRecord {
  scenario: ScenarioName;
  at: number;
  valid: boolean;
  kind: StepResult['kind'];
  /** The verdict; null when the attempt was throttled (or never evaluated). */
  action: RiskAction | null;
  reasons: RiskReason[];
  score: number | null;
  /** Both stages (right password) or the early one (wrong password, early block); null when not evaluated. */
  evaluationMs: number | null;
  /** What the evaluation added to the sign-in's time (password-sign-in.ts, EvaluationTime); null when not evaluated. */
  addedMs: number | null;
  fullEvaluation: boolean;
  signedIn: boolean;
  /** A bare `SELECT 1` timed just before the attempt: the floor any statement pays on this machine at that moment. */
  roundTripMs: number;
}

export interface RunOptions {
  scale: EvalScale;
  seed: number;
  /** Called now and then with the attempts replayed so far. */
  progress?: (done: number) => void;
}

/** The first measured day: a Monday. */
export const EVAL_START = Date.UTC(2026, 2, 2);

export async function replay(db: Db, config: Config, options: RunOptions): Promise<AttemptRecord[]> {
  let now = EVAL_START - 3 * DAY;
  const clock = () => new Date(now);
  const log = pino({ level: 'silent' });
  const ctx = await createProviderContext({ config, db, clock, log, clientAuthCacheMs: 0 });
  try {
    const random = new Random(options.seed);
    const users = syntheticUsers(random, options.scale.users + 1);
    const world: World = { seed: options.seed, scale: options.scale, start: EVAL_START, users: users.slice(0, -1), victim: users.at(-1)! };
    await applySeed(
      db,
      ctx.passwords,
      { clients: [], users: users.map((u) => ({ username: u.username, password: u.password, email: u.email })) },
      clock(),
    );

    const queue = new StepQueue();
    for (const actor of buildActors(world)) queue.start(actor);
    const records: AttemptRecord[] = [];
    for (let next = queue.pop(); next; next = queue.pop()) {
      const { actor, step } = next;
      now = Math.max(now, step.at);
      const roundTripStarted = performance.now();
      await sql`SELECT 1`.execute(db);
      const roundTripMs = performance.now() - roundTripStarted;
      const record = { ...(await attempt(ctx, step)), roundTripMs };
      records.push(record);
      if (records.length % 250 === 0) options.progress?.(records.length);
      queue.resume(actor, {
        kind: record.kind,
        action: record.action,
        signedIn: record.signedIn,
        retryAfterSeconds: record.retryAfterSeconds,
      });
    }
    return records;
  } finally {
    ctx.keys.close();
  }
}

/** One attempt as the sign-in page makes it, and the sign-in completed when the verdict (or a second factor) lets it. */
async function attempt(ctx: ProviderContext, step: Step): Promise<Omit<AttemptRecord, 'roundTripMs'> & { retryAfterSeconds?: number }> {
  const outcome = await signInWithPassword(ctx, step.login, step.password, step.signals());
  // No client here requires a second factor, so that answer cannot come.
  if (outcome.kind === 'no-second-factor') throw new Error('a sign-in for no client needed a second factor');
  const base = { scenario: step.scenario, at: step.at, valid: step.valid, kind: outcome.kind };
  if (outcome.kind === 'throttled') {
    return {
      ...base,
      action: null,
      reasons: [],
      score: null,
      evaluationMs: null,
      addedMs: null,
      fullEvaluation: false,
      signedIn: false,
      retryAfterSeconds: outcome.retryAfterSeconds,
    };
  }
  if (outcome.kind === 'wrong-credentials') {
    const e = outcome.evaluation;
    return {
      ...base,
      action: e?.verdict.action ?? null,
      reasons: e?.verdict.reasons ?? [],
      score: e?.verdict.score ?? null,
      evaluationMs: e?.evaluationMs ?? null,
      addedMs: e?.addedMs ?? null,
      fullEvaluation: step.valid && e !== undefined && e.verdict.action === 'BLOCK',
      signedIn: false,
    };
  }
  const completes = outcome.kind === 'signed-in' || step.passesSecondFactor;
  if (completes) await completeSignIn(ctx, { ...outcome, amr: outcome.kind === 'signed-in' ? ['pwd'] : SECOND_FACTOR_AMR });
  return {
    ...base,
    action: outcome.verdict.action,
    reasons: outcome.verdict.reasons,
    score: outcome.verdict.score,
    evaluationMs: outcome.evaluationMs,
    addedMs: outcome.addedMs,
    fullEvaluation: true,
    signedIn: completes,
  };
}

/** The actors' next attempts, earliest first (ties in the order the actors were started). */
class StepQueue {
  private readonly heap: Array<{ at: number; order: number; actor: Actor; step: Step }> = [];
  private readonly order = new Map<Actor, number>();

  start(actor: Actor): void {
    this.order.set(actor, this.order.size);
    this.push(actor, actor.next(undefined as never));
  }

  resume(actor: Actor, result: StepResult): void {
    this.push(actor, actor.next(result));
  }

  pop(): { actor: Actor; step: Step } | undefined {
    const top = this.heap[0];
    if (!top) return undefined;
    const last = this.heap.pop()!;
    if (this.heap.length > 0) {
      this.heap[0] = last;
      this.down(0);
    }
    return { actor: top.actor, step: top.step };
  }

  private push(actor: Actor, next: IteratorResult<Step, void>): void {
    if (next.done) return;
    this.heap.push({ at: next.value.at, order: this.order.get(actor)!, actor, step: next.value });
    this.up(this.heap.length - 1);
  }

  private less(a: number, b: number): boolean {
    const x = this.heap[a]!;
    const y = this.heap[b]!;
    return x.at < y.at || (x.at === y.at && x.order < y.order);
  }

  private swap(a: number, b: number): void {
    [this.heap[a], this.heap[b]] = [this.heap[b]!, this.heap[a]!];
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < this.heap.length && this.less(left, smallest)) smallest = left;
      if (right < this.heap.length && this.less(right, smallest)) smallest = right;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }
}
