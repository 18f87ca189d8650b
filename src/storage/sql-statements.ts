// Splits a migration file into single statements: PGlite's extended-protocol queries take one at a time.
// Semicolons inside quotes, dollar-quoted bodies and comments do not split.

export function splitSqlStatements(source: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    const next = source[i + 1];
    if (ch === '-' && next === '-') {
      i = endOf(source, '\n', i + 2);
    } else if (ch === '/' && next === '*') {
      i = endOf(source, '*/', i + 2);
    } else if (ch === "'" || ch === '"') {
      i = endOf(source, ch, i + 1);
    } else if (ch === '$') {
      const tag = /^\$(?:[A-Za-z_][A-Za-z_0-9]*)?\$/.exec(source.slice(i, i + 64))?.[0];
      i = tag ? endOf(source, tag, i + tag.length) : i + 1;
    } else if (ch === ';') {
      pushStatement(statements, source.slice(start, i));
      start = i + 1;
      i += 1;
    } else {
      i += 1;
    }
  }
  pushStatement(statements, source.slice(start));
  return statements;
}

function endOf(source: string, terminator: string, from: number): number {
  const at = source.indexOf(terminator, from);
  return at === -1 ? source.length : at + terminator.length;
}

function pushStatement(statements: string[], text: string): void {
  const withoutComments = text.replace(/--[^\n]*/g, '').trim();
  if (withoutComments !== '') statements.push(text.trim());
}
