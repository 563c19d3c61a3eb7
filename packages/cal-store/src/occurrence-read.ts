import { parseWallTime, wallKey } from '@cal/recurrence'
import { sql } from 'kysely'
import type { CalEvent } from './event.js'
import { type EventRowWithRelations, selectEvents, toEvent } from './event-rows.js'
import { validIds } from './id-list.js'
import { decodeOccurrenceId } from './series-ids.js'
import {
  compileStored,
  type Occurrence,
  parseRecurrence,
  type Recurrence,
  seriesTiming,
} from './series-recurrence.js'
import type { CalDb } from './store-context.js'

/** A series row's recurrence, compiled (kept by `compileStored`). */
export function seriesRecurrence(row: {
  recurrence: string | null
  start_utc: Date
  end_utc: Date
  timezone: string
  all_day: boolean
}): Recurrence {
  return compileStored(row.recurrence as string, {
    start: row.start_utc,
    end: row.end_utc,
    timezone: row.timezone,
    all_day: row.all_day,
  })
}

/**
 * The occurrence `key` of a series that an exception date removed (a `scope=this` delete, or an
 * exdate given with the rule), if that is why the series has none there: its rules and rdates
 * produce it, the whole recurrence does not. Such an occurrence is a trashed record, not an
 * unknown one (issue 47): it answers as trashed and no write on it brings it back.
 */
export function deletedOccurrence(
  row: Parameters<typeof seriesRecurrence>[0],
  key: number,
): Occurrence | undefined {
  const { exdates, ...kept } = parseRecurrence(row.recurrence as string)
  if (!exdates?.length || seriesRecurrence(row).byKey(key)) return undefined
  return seriesRecurrence({ ...row, recurrence: JSON.stringify(kept) }).byKey(key)
}

/** The key of a series' first start (its DTSTART): the occurrence the series' own id names. */
export function firstKey(series: {
  start_utc: Date
  end_utc: Date
  timezone: string
  all_day: boolean
}): number {
  const { start } = seriesTiming({
    start: series.start_utc,
    end: series.end_utc,
    timezone: series.timezone,
    all_day: series.all_day,
  })
  // A stored start is a wall time of 1000..9999, so it parses.
  return wallKey(parseWallTime(start, false) as number)
}

/** The record of occurrence `occurrence` (id `id`) of `series` (the series' own record). */
export function occurrenceEvent(series: CalEvent, id: number, occurrence: Occurrence): CalEvent {
  return {
    ...series,
    id,
    start: new Date(occurrence.startMs),
    end: new Date(occurrence.endMs),
    post_parent: series.post_parent,
    occurrence_start: new Date(occurrence.startMs),
  }
}

/**
 * The events with these public ids, in their order, unknown ones skipped: serial ids of
 * single events and series (a series' id is its first occurrence), occurrence ids decoded
 * to (series, key) (`series-ids.ts`), an edited occurrence read from its override row. One
 * statement whatever the mix. An override's row id and an occurrence id whose occurrence the
 * rule does not produce (or the first occurrence under its second name) name nothing.
 */
export async function readEventsById(db: CalDb, ids: readonly number[]): Promise<CalEvent[]> {
  const serial = validIds(ids)
  const decoded = new Map<number, { slot: number; key: number }>()
  for (const id of ids) {
    const d = decodeOccurrenceId(id)
    if (d) decoded.set(id, d)
  }
  if (serial.length === 0 && decoded.size === 0) return []
  const slots = [...new Set([...decoded.values()].map((d) => d.slot))]
  const publicIds = [...serial, ...decoded.keys()]
  const rows = await selectEvents(db)
    .where((eb) =>
      eb.or([
        sql<boolean>`cal_event.id = any(${serial}::integer[])`,
        sql<boolean>`cal_event.occurrence_id = any(${publicIds}::bigint[])`,
        sql<boolean>`cal_event.series_slot = any(${slots}::integer[])`,
      ]),
    )
    .execute()
  const byRow = new Map<number, EventRowWithRelations>()
  const overrides = new Map<number, EventRowWithRelations>()
  const bySlot = new Map<number, EventRowWithRelations>()
  for (const row of rows) {
    byRow.set(row.id, row)
    if (row.occurrence_id !== null) overrides.set(Number(row.occurrence_id), row)
    if (row.series_slot !== null) bySlot.set(row.series_slot, row)
  }
  const out: CalEvent[] = []
  for (const id of ids) {
    const override = overrides.get(id)
    if (override) {
      out.push(toEvent(override))
      continue
    }
    const d = decoded.get(id)
    if (!d) {
      const row = byRow.get(id)
      if (!row || row.occurrence_key !== null) continue
      if (row.recurrence !== null && !seriesRecurrence(row).byKey(firstKey(row))) {
        // The series goes on; its id names its first occurrence, deleted.
        if (deletedOccurrence(row, firstKey(row))) out.push({ ...toEvent(row), status: 'trash' })
        continue
      }
      out.push(toEvent(row))
      continue
    }
    const series = bySlot.get(d.slot)
    if (!series || d.key === firstKey(series)) continue
    const occurrence = seriesRecurrence(series).byKey(d.key)
    if (occurrence) out.push(occurrenceEvent(toEvent(series), id, occurrence))
    else {
      const deleted = deletedOccurrence(series, d.key)
      if (deleted) out.push({ ...occurrenceEvent(toEvent(series), id, deleted), status: 'trash' })
    }
  }
  return out
}
