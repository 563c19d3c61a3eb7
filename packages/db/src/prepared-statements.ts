import type { Sql } from 'postgres'
import { pipelineReadOnly } from './read-only-transactions.js'

/** Default of `PostgresOptions.preparedStatements`: distinct query texts prepared at most. */
export const DEFAULT_PREPARED_STATEMENTS = 1000

/** `limit` as a cap of prepared texts, checked before a pool is made for it. */
export function statementCap(limit: number): number {
  if (!(Number.isSafeInteger(limit) && limit >= 0)) {
    throw new RangeError(`preparedStatements must be a whole number ≥ 0, not ${limit}`)
  }
  return limit
}

/**
 * What kysely-postgres-js needs of postgres.js (`reserve`, `end`), with Kysely's queries run
 * as named prepared statements: kysely-postgres-js runs every query through `unsafe()`,
 * which postgres.js sends unnamed, so the server plans it again on every execution
 * (`bench:series`: list p50 12.1 → 9.8 ms, writes 16.2 → 11.5 ms in one interleaved run).
 *
 * postgres.js keeps a connection's statements for the connection's life and never forgets
 * one, so only the first `limit` distinct texts are prepared (the application's own queries,
 * in practice); texts after them run unnamed as before. Lists spelled out in the text (an
 * `in (…)` of a client's ids) can so never fill a server's memory with statements.
 *
 * A prepared statement fails once with "cached plan must not change result type" when a
 * migration changes what it returns; the stores therefore name their columns rather than
 * `select *`, so another process's added column changes no statement's result.
 */
export function preparingSql(sql: Sql, limit: number) {
  const prepared = new Set<string>()
  const prepare = (text: string) => {
    if (prepared.has(text)) return true
    if (prepared.size >= limit) return false
    prepared.add(text)
    return true
  }
  return {
    async reserve() {
      const reserved = await sql.reserve()
      // All kysely-postgres-js calls on a reserved connection.
      return pipelineReadOnly({
        unsafe: (text: string, parameters?: unknown[], options: { prepare?: boolean } = {}) =>
          // Without parameters postgres.js sends the simple protocol: nothing to prepare.
          reserved.unsafe(text, parameters as never, {
            prepare: (parameters?.length ?? 0) > 0 && prepare(text),
            ...options,
          }),
        release: () => reserved.release(),
      })
    },
    end: () => sql.end(),
  }
}
