import { type Kysely, sql } from 'kysely'

/** The unique-index name of a PostgreSQL unique violation (SQLSTATE 23505), else `undefined`. */
function uniqueViolation(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const e = error as { code?: unknown; constraint_name?: unknown; constraint?: unknown }
  if (e.code !== '23505') return undefined
  const name = e.constraint_name ?? e.constraint
  return typeof name === 'string' ? name : ''
}

let counter = 0

/**
 * Runs `fn` inside a savepoint of the open transaction `trx`; when it fails with a unique
 * violation, rolls back to the savepoint (the transaction stays usable) and retries while
 * `shouldRetry(constraint)` says so, up to `attempts` times. Other errors propagate.
 */
export async function retryOnUniqueViolation<T, DB>(
  trx: Kysely<DB>,
  shouldRetry: (constraint: string) => boolean,
  fn: () => Promise<T>,
  attempts = 20,
): Promise<T> {
  const name = sql.id(`cal_sp_${++counter}`)
  for (let attempt = 1; ; attempt++) {
    await sql`savepoint ${name}`.execute(trx)
    try {
      const value = await fn()
      await sql`release savepoint ${name}`.execute(trx)
      return value
    } catch (error) {
      await sql`rollback to savepoint ${name}`.execute(trx)
      const constraint = uniqueViolation(error)
      if (constraint === undefined || !shouldRetry(constraint) || attempt >= attempts) throw error
    }
  }
}
