import { CalNotFoundError } from './errors.js'
import { EVENT_COLUMNS, type EventRow } from './event-rows.js'
import { validIds } from './id-list.js'
import { firstKey } from './occurrence-read.js'
import { decodeOccurrenceId } from './series-ids.js'
import type { CalDb } from './store-context.js'

/** What a write on a public id acts on, locked: a row of its own, or an occurrence of a series. */
export type Target = { row: EventRow } | { series: EventRow; key: number }

/**
 * Resolves the public id of a write and locks what it acts on, in one statement: a single
 * event's row, or the series of its own id (its first occurrence) or of an occurrence id,
 * with the occurrence's key. An occurrence id locks its series `FOR SHARE` when `share` (edits
 * of single occurrences run side by side), everything else `FOR UPDATE`: a serial id may be a
 * single event, which its write then updates (a shared lock taken first would have to be
 * upgraded, and two such writers would deadlock). An override's row id and an unknown id are
 * not found; so is a series a concurrent write made a single event, by an occurrence id.
 */
export async function lockTarget(trx: CalDb, id: number, share: boolean): Promise<Target> {
  const decoded = decodeOccurrenceId(id)
  const columns = trx.selectFrom('cal_event').select(EVENT_COLUMNS)
  const bySlot = decoded && columns.where('series_slot', '=', decoded.slot)
  const row = bySlot
    ? await (share ? bySlot.forShare() : bySlot.forUpdate()).executeTakeFirst()
    : validIds([id]).length
      ? await columns.where('id', '=', id).forUpdate().executeTakeFirst()
      : undefined
  if (!row || row.occurrence_key !== null) throw new CalNotFoundError('event', id)
  if (row.recurrence === null) {
    if (decoded) throw new CalNotFoundError('event', id)
    return { row }
  }
  const first = firstKey(row)
  // The first occurrence has one name: the series' id.
  if (decoded && decoded.key === first) throw new CalNotFoundError('event', id)
  return { series: row, key: decoded ? decoded.key : first }
}
