import { type Insertable, sql } from 'kysely'
import { CalValidationError } from './errors.js'
import { EVENT_FLAGS } from './event.js'
import type { EventRow } from './event-rows.js'
import type { EventTable } from './schema.js'
import { MAX_SERIES_SLOT } from './series-ids.js'
import type { Recurrence } from './series-recurrence.js'
import type { CalDb } from './store-context.js'

/**
 * A new series' slot from its sequence (migration 0014). Past the last slot the sequence
 * refuses (its maxvalue); that is a request error on `recurrence`, not a 500.
 */
export async function nextSeriesSlot(trx: CalDb): Promise<number> {
  const { rows } = await sql<{ slot: number }>`select n as slot from (
      select case when last_value < ${MAX_SERIES_SLOT} or not is_called then 1 else 0 end as ok
      from cal_series_slot_seq) s, lateral (select nextval('cal_series_slot_seq')::integer as n
        where s.ok = 1) v`.execute(trx)
  const slot = rows[0]?.slot
  if (slot === undefined) {
    throw new CalValidationError('recurrence', `the store holds at most ${MAX_SERIES_SLOT} series`)
  }
  return slot
}

/** Deletes overrides of `seriesId` (all, or those `lost` says are gone); their occurrence ids. */
async function deleteOverrides(
  trx: CalDb,
  seriesId: number,
  lost?: (key: number) => boolean,
): Promise<number[]> {
  const rows = await trx
    .selectFrom('cal_event')
    .select(['id', 'occurrence_key', 'occurrence_id'])
    .where('post_parent', '=', seriesId)
    .where('occurrence_key', 'is not', null)
    .orderBy('id')
    .forUpdate()
    .execute()
  const gone = lost ? rows.filter((r) => lost(Number(r.occurrence_key))) : rows
  if (gone.length === 0) return []
  await trx
    .deleteFrom('cal_event')
    .where(
      'id',
      'in',
      gone.map((r) => r.id),
    )
    .execute()
  const ids = gone.map((r) => Number(r.occurrence_id))
  return ids
}

/** Drops every override of `seriesId` (it became a single event); their occurrence ids. */
export function dropOverrides(trx: CalDb, seriesId: number): Promise<number[]> {
  return deleteOverrides(trx, seriesId)
}

/** Drops the overrides whose occurrence `recurrence` no longer has; their occurrence ids. */
export function dropLostOverrides(
  trx: CalDb,
  seriesId: number,
  recurrence: Recurrence,
): Promise<number[]> {
  return deleteOverrides(trx, seriesId, (key) => recurrence.byKey(key) === undefined)
}

/** Series columns an edit of the whole series carries to its overrides (see below). */
const SHARED_COLUMNS = [
  'title',
  'description',
  'excerpt',
  'status',
  'author',
  'image',
  'cost',
  'website',
  'venue_id',
  'password_hash',
  ...EVENT_FLAGS,
] as const

/**
 * An edit of the whole series changes every occurrence, edited ones included, except in the
 * fields an override changed itself: a field is carried to the overrides that still hold the
 * series' old value (what calendar clients do: a renamed series renames its moved occurrence,
 * never the one renamed on its own). Trashing the series trashes them all.
 */
export async function carryToOverrides(
  trx: CalDb,
  current: EventRow,
  changes: Partial<Insertable<EventTable>>,
): Promise<void> {
  for (const column of SHARED_COLUMNS) {
    const value = changes[column]
    if (value === undefined || value === current[column]) continue
    const old = current[column]
    await trx
      .updateTable('cal_event')
      .set({ [column]: value, modified: changes.modified })
      .where('post_parent', '=', current.id)
      .where('occurrence_key', 'is not', null)
      .where(
        column === 'status' && value === 'trash'
          ? sql<boolean>`true`
          : sql<boolean>`${sql.ref(column)} is not distinct from ${old}`,
      )
      .execute()
  }
}
