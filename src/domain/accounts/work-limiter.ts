// A semaphore with a bounded queue: at most `maxRunning` tasks at once and `maxQueued` waiting; one more is refused.
import { TemporarilyUnavailable } from '../../errors/oauth-error.js';

export class WorkLimiter {
  private running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    private readonly maxRunning: number,
    private readonly maxQueued: number,
  ) {
    if (!Number.isInteger(maxRunning) || maxRunning < 1) throw new RangeError('maxRunning must be a positive integer');
    if (!Number.isInteger(maxQueued) || maxQueued < 0) throw new RangeError('maxQueued must be a non-negative integer');
  }

  /** Tasks running and waiting now. */
  get load(): { running: number; queued: number } {
    return { running: this.running, queued: this.queue.length };
  }

  /** Runs `task` when a slot is free; throws TemporarilyUnavailable at once when the queue is full. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.maxRunning) {
      this.running += 1;
    } else if (this.queue.length < this.maxQueued) {
      // The slot is handed over by release(): `running` already counts this task when it wakes.
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else {
      throw new TemporarilyUnavailable('the service is busy, try again shortly');
    }
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.running -= 1;
  }
}
