import type pg from 'pg'

/** A statement whose one parameter, `$1::jsonb`, is a JSON array of rows. */
export interface JsonStatement {
  sql: string
  rows: unknown[]
}

/**
 * Runs statements as one multi-statement query: PostgreSQL executes them in order as one implicit
 * transaction (all or none), in one round trip where BEGIN, each statement and COMMIT would take one each.
 * The rows go inline as a string literal (the simple protocol that allows several statements takes no
 * parameters): an E'' literal with quotes and backslashes doubled reads back exactly, whatever
 * standard_conforming_strings is, and JSON text holds no NUL. Answers each statement's result (its row count,
 * and its rows for a statement that returns some).
 */
export async function resultsAtomically(
  pool: pg.Pool,
  statements: readonly JsonStatement[],
): Promise<pg.QueryResult[]> {
  if (statements.length === 0) return []
  const text = statements
    // A function, not a string, as the replacement: a `$'` or `$&` in a row's text stays text.
    .map(({ sql, rows }) => sql.replace('$1::jsonb', () => `${literal(JSON.stringify(rows))}::jsonb`))
    .join(';\n')
  const results = (await pool.query(text)) as pg.QueryResult | pg.QueryResult[]
  return Array.isArray(results) ? results : [results]
}

function literal(text: string): string {
  return `E'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`
}
