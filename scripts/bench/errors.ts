// What went wrong in an operation, by kind, so that the report can say which answers were unexpected.

/** An answer the bench did not expect; `kind` is short and stable (e.g. token_http_400_invalid_grant). */
export class BenchError extends Error {
  constructor(
    readonly kind: string,
    detail: string,
  ) {
    super(`${kind}: ${detail}`);
    this.name = 'BenchError';
  }
}

/** The error kind for an HTTP answer with an unexpected status, with the OAuth error code when there is one. */
export function httpErrorKind(step: string, status: number, body: string): string {
  let code = '';
  if (body.startsWith('{')) {
    try {
      const parsed = JSON.parse(body) as { error?: unknown };
      if (typeof parsed.error === 'string') code = `_${parsed.error}`;
    } catch {
      // not JSON after all
    }
  }
  return `${step}_http_${status}${code}`;
}

export class ErrorTally {
  readonly counts: Record<string, number> = {};
  /** The first message of each kind. */
  readonly examples: Record<string, string> = {};
  total = 0;

  add(err: unknown): void {
    const kind = err instanceof BenchError ? err.kind : ((err as NodeJS.ErrnoException)?.code ?? (err as Error)?.name ?? 'error');
    this.counts[kind] = (this.counts[kind] ?? 0) + 1;
    this.examples[kind] ??= String((err as Error)?.message ?? err).slice(0, 300);
    this.total += 1;
  }
}
