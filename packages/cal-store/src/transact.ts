import type { CalDb } from './store-context.js'

/** Where a write runs: the database (a `StoreContext` holds one). */
export interface WriteTarget {
  readonly db: CalDb
}

/** SQLSTATEs of transient conflicts the store retries: deadlock, serialization failure. */
const TRANSIENT = new Set(['40P01', '40001'])

/** Whether `error` (or its cause) is a transient conflict a retry of the transaction settles. */
export function isTransientConflict(error: unknown): boolean {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && TRANSIENT.has(code)) return true
    e = (e as { cause?: unknown }).cause
  }
  return false
}

/**
 * A conflict found by the store itself that a fresh run of the transaction settles (a record a
 * name resolved to was deleted before the write locked it); retried like a serialization failure.
 */
export class WriteConflict extends Error {
  readonly code = '40001'
  constructor(message: string) {
    super(message)
    this.name = 'WriteConflict'
  }
}

/** How many times {@link transact} runs a transaction that keeps losing conflicts. */
export const WRITE_ATTEMPTS = 6

/**
 * Runs `fn` in a transaction of `db`, again (from scratch, after a jittered pause that doubles
 * each time: 5–10 ms, 10–20 ms, …) when PostgreSQL aborts it as a deadlock victim or a
 * serialization failure, at most {@link WRITE_ATTEMPTS} times in all. The lock orders keep
 * these rare; the rest (a write holding an event that waits for a term a delete holds, while
 * the delete's cascade waits for that event) cannot be ordered away and end here, never in a 500.
 */
export async function transact<T>(
  target: CalDb | WriteTarget,
  fn: (trx: CalDb) => Promise<T>,
): Promise<T> {
  // A Kysely instance, or a context holding one (not `instanceof`: two copies of kysely may load).
  const { db }: WriteTarget = 'selectFrom' in target ? { db: target } : target
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(fn)
    } catch (error) {
      if (!isTransientConflict(error) || attempt >= WRITE_ATTEMPTS) throw error
      const base = 5 * 2 ** (attempt - 1)
      await new Promise((resolve) => setTimeout(resolve, base + Math.random() * base))
    }
  }
}
