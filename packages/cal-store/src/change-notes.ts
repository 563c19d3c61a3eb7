import { sql } from 'kysely'
import type { CalChange, CalChangeAction } from './record-change.js'
import type { RecordKind } from './status.js'
import type { CalDb } from './store-context.js'

/**
 * The changes each open transaction has noted, by its `trx`: the write paths pass `trx` down
 * anyway, so it names the transaction without widening every signature. Only a transaction
 * opened by `transact` with a change hook has an entry; elsewhere noting does nothing.
 */
const open = new WeakMap<object, Map<string, CalChange>>()

/** Which action wins when one transaction does several things to a record. */
const RANK: Record<CalChangeAction, number> = { updated: 0, created: 1, deleted: 2 }

/** Starts noting the changes of the transaction `trx`. */
export function startNotes(trx: CalDb): void {
  open.set(trx, new Map())
}

/** Stops noting for `trx` (committed or rolled back). */
export function endNotes(trx: CalDb): void {
  open.delete(trx)
}

/**
 * Notes that the transaction `trx` did `action` to the records `ids` of `kind`; call it after
 * the statement that did it succeeded (outside a savepoint that may still roll back). Per
 * record, a deletion outranks a creation, which outranks an update.
 */
export function noteChanges(
  trx: CalDb,
  kind: RecordKind,
  action: CalChangeAction,
  ids: Iterable<number>,
): void {
  const notes = open.get(trx)
  if (!notes) return
  for (const id of ids) {
    const key = `${kind}:${id}`
    const before = notes.get(key)
    if (!before || RANK[action] > RANK[before.action]) notes.set(key, { kind, action, id })
  }
}

/**
 * The changes of `trx` so far: what the write paths noted, and every other event row the
 * transaction wrote as `event.updated` (the event change log of migration 0011 has them all,
 * also those a venue trash or a term delete rewrote as a side effect).
 */
export async function takeNotes(trx: CalDb): Promise<CalChange[]> {
  const { rows } = await sql<{ event_id: number }>`
    select distinct event_id from cal_event_change
    where xid = pg_current_xact_id()::text and event_id is not null`.execute(trx)
  noteChanges(
    trx,
    'event',
    'updated',
    rows.map((r) => r.event_id),
  )
  return [...(open.get(trx)?.values() ?? [])]
}
