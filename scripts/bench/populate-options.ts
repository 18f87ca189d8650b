// --populate=large and --scale of npm run bench, checked once (options.ts calls this with the raw values).

export interface PopulateOption {
  /** The share of issue 21's sizes: 1 is a million users and ten million access tokens; 0.01 a hundredth. */
  readonly scale: number;
}

export const POPULATE_USAGE = `--populate=large [--scale=1]: on a kept PostgreSQL database (sso_bench_large, or
sso_bench_large_<scale> below 1, or BENCH_DATABASE_URL) filled once with a deployment's rows (docs/benchmarks.md)`;

/**
 * undefined without --populate; --scale alone is refused, as is --populate with --embedded (PostgreSQL only). A
 * RangeError says what is wrong (options.ts makes it a UsageError).
 */
export function populateOption(raw: { populate?: string; scale?: string; embedded: boolean }): PopulateOption | undefined {
  if (raw.populate === undefined) {
    if (raw.scale !== undefined) throw new RangeError('--scale goes with --populate');
    return undefined;
  }
  if (raw.populate !== 'large') throw new RangeError(`--populate knows one size, "large" (got "${raw.populate}")`);
  if (raw.embedded) throw new RangeError('--populate fills a PostgreSQL database; it does not go with --embedded');
  const text = raw.scale ?? '1';
  const scale = Number(text);
  if (!/^(0|[1-9]\d*)?(\.\d+)?$/.test(text) || !(scale > 0 && scale <= 1))
    throw new RangeError(`--scale must be a number above 0 and at most 1 (got "${text}")`);
  return Object.freeze({ scale });
}

/** The kept database of that scale: sso_bench_large, sso_bench_large_0_01. */
export function populatedDatabaseName(scale: number): string {
  return scale === 1 ? 'sso_bench_large' : `sso_bench_large_${String(scale).replace('.', '_')}`;
}
