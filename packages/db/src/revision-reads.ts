import { type Kysely, type RawBuilder, sql } from 'kysely'
import type { Database } from './database.js'
import { sharedReads } from './shared-reads.js'

/**
 * Reads of a stored data revision for callers that must never see one older than a commit that
 * returned before they asked. Concurrent callers share round trips ({@link sharedReads}); where
 * the database delivers notifications before the notifying commit returns
 * ({@link Database.listenInProcess}: PGlite), the value is also kept until `channel` is notified,
 * so reading it costs no query while nothing is written. The revision's table must notify
 * `channel` on every change: {@link notifyOnChange} in the store's migrations. When it sends the
 * committed value as the payload, `fromPayload` reads it and the notification itself becomes
 * the kept value: no query after a commit either, which on PGlite would wait behind whatever
 * transaction holds its one session next (a refresh's next ingest).
 */
export function revisionReads<T>(
  database: Database,
  channel: string,
  read: () => Promise<T>,
  fromPayload?: (payload: string) => T | undefined,
): () => Promise<T> {
  const shared = sharedReads(read)
  const listen = database.listenInProcess
  if (!listen) return shared
  let generation = 0
  let kept: { generation: number; value: Promise<T> } | undefined
  let listening: Promise<unknown> | undefined
  const startListening = () =>
    (listening ??= listen(channel, (payload) => {
      generation++
      // Notifications come in commit order, so the last one holds the newest committed value.
      const value = payload === undefined ? undefined : fromPayload?.(payload)
      if (value !== undefined) kept = { generation, value: Promise.resolve(value) }
    }).catch((error: unknown) => {
      listening = undefined
      throw error
    }))
  // Now rather than on the first read, which would pay for it (a first LISTEN in a new
  // process is 5–20 ms of PGlite's time); the first read retries a failure.
  startListening().catch(() => {})
  return async () => {
    await startListening()
    if (kept?.generation === generation) return kept.value
    // Kept under the generation current when it was asked for: a notification while it is in
    // flight retires it, since it may have been read before that commit.
    const value = shared()
    const entry = { generation, value }
    kept = entry
    value.catch(() => {
      if (kept === entry) kept = undefined
    })
    return value
  }
}

/**
 * Migration step: every statement that changes `table` notifies `channel` (delivered at commit,
 * never for a rollback), with `payload` (a SQL expression of type text, evaluated when the
 * statement has run) or an empty one. With no listener PostgreSQL drops the notification.
 */
export async function notifyOnChange<DB>(
  db: Kysely<DB>,
  table: string,
  channel: string,
  payload?: RawBuilder<string>,
): Promise<void> {
  await notifyPayload(db, table, channel, payload)
  const fn = sql.id(`${table}_notify`)
  await sql`create trigger ${fn} after insert or update or delete or truncate on ${sql.table(table)}
    for each statement execute function ${fn}()`.execute(db)
}

/**
 * Migration step: replaces what {@link notifyOnChange}'s trigger on `table` sends (`payload`, or
 * an empty payload without one).
 */
export async function notifyPayload<DB>(
  db: Kysely<DB>,
  table: string,
  channel: string,
  payload?: RawBuilder<string>,
): Promise<void> {
  const fn = sql.id(`${table}_notify`)
  await sql`create or replace function ${fn}() returns trigger language plpgsql as $$
    begin
      perform pg_notify(${sql.lit(channel)}, ${payload ? sql`coalesce(${payload}, '')` : sql.lit('')});
      return null;
    end $$`.execute(db)
}

/** Undoes {@link notifyOnChange}. */
export async function dropNotifyOnChange<DB>(db: Kysely<DB>, table: string): Promise<void> {
  const fn = sql.id(`${table}_notify`)
  await sql`drop trigger ${fn} on ${sql.table(table)}`.execute(db)
  await sql`drop function ${fn}()`.execute(db)
}
