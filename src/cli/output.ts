// What the command line prints on stdout: aligned tables and "field value" blocks for people, JSON for scripts.

/** A time to the second, in UTC: 2026-11-24T10:00:00Z; '-' for none. */
export function iso(date: Date | null | undefined): string {
  return date ? date.toISOString().replace(/\.\d{3}Z$/, 'Z') : '-';
}

/** Columns separated by two spaces, each as wide as its widest cell; no trailing spaces. */
function formatTable(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map(
      (row) =>
        `${row
          .map((cell, i) => cell.padEnd(widths[i]!))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}

/** One field per line, names aligned; a list takes one line per item. */
export function formatFields(fields: ReadonlyArray<readonly [string, unknown]>): string {
  const width = Math.max(...fields.map(([name]) => name.length));
  const text = (value: unknown): string[] => {
    if (value === undefined || value === null) return ['-'];
    if (value instanceof Date) return [iso(value)];
    if (Array.isArray(value)) return value.length === 0 ? ['-'] : value.flatMap(text);
    if (typeof value === 'object') return [JSON.stringify(value)];
    return [String(value)];
  };
  return fields
    .map(([name, value]) =>
      text(value)
        .map((line, i) => `${(i === 0 ? name : '').padEnd(width)}  ${line}`.trimEnd())
        .join('\n'),
    )
    .join('\n')
    .concat('\n');
}

export interface Output {
  /** Pretty JSON (times given as iso() strings by the caller). */
  json(value: unknown): void;
  /** A header row and its rows; `empty` instead when there are none. */
  table(header: readonly string[], rows: readonly (readonly string[])[], empty: string): void;
  fields(fields: ReadonlyArray<readonly [string, unknown]>): void;
  line(text: string): void;
}

export function stdoutOutput(write: (text: string) => void = (t) => process.stdout.write(t)): Output {
  return {
    json: (value) => write(`${JSON.stringify(value, null, 2)}\n`),
    table: (header, rows, empty) => write(rows.length === 0 ? `${empty}\n` : formatTable([header, ...rows])),
    fields: (fields) => write(formatFields(fields)),
    line: (text) => write(`${text}\n`),
  };
}
