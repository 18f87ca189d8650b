// A notifier that keeps what it is given, for tests that read a one-time code or a new-device notice the way a
// user would: from the message, not from the database.
import type { Notifier } from '../../src/domain/notifications/notifier.js';
import type { ClaimedMessage } from '../../src/storage/outbox.js';

export class CapturingNotifier implements Notifier {
  readonly messages: ClaimedMessage[] = [];

  async send(message: ClaimedMessage): Promise<void> {
    this.messages.push(message);
  }

  /** The messages of `kind` to `userId` so far. */
  to(userId: string, kind: string): ClaimedMessage[] {
    return this.messages.filter((m) => m.userId === userId && m.kind === kind);
  }

  /** Waits (up to `timeoutMs`) for the `nth` (1-based) message of `kind` to `userId`. */
  async next(userId: string, kind: string, nth = 1, timeoutMs = 10_000): Promise<ClaimedMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.to(userId, kind)[nth - 1];
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no ${kind} message #${nth} for ${userId} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** The one-time code of the `nth` code message to `userId`. */
  async code(userId: string, nth = 1): Promise<string> {
    const message = await this.next(userId, 'one-time-code', nth);
    const code = message.payload.code;
    if (typeof code !== 'string') throw new Error('a one-time-code message without a code');
    return code;
  }
}
