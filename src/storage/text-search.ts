// The search of a list page (the management API's `q`, the console's search box): a part of any of some text
// columns, in any case, with no LIKE pattern characters to escape (strpos takes the text as it is).
import { sql, type RawBuilder } from 'kysely';

/** True where `text` is part of one of `columns` (a NULL column matches nothing), compared in lower case. */
export function containsText(text: string, columns: readonly string[]): RawBuilder<boolean> {
  const tests = columns.map((column) => sql<boolean>`strpos(lower(coalesce(${sql.ref(column)}, '')), lower(${text})) > 0`);
  return sql<boolean>`(${sql.join(tests, sql` OR `)})`;
}
