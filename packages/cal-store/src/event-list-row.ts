import { type RawBuilder, sql } from 'kysely'
import { POST_STATUSES } from './status.js'
import type { CalDb } from './store-context.js'

/** An instant as the model keeps it: whole milliseconds since 1970 and the microseconds past. */
const instant = (column: 'start_utc' | 'end_utc'): [RawBuilder<number>, RawBuilder<number>] => {
  const ref = sql.ref(column)
  // numeric arithmetic: exact over every storable year, unlike float8 microseconds.
  return [
    sql<number>`floor(extract(epoch from ${ref}) * 1000)::float8`,
    sql<number>`(extract(epoch from ${ref}) * 1000000 - floor(extract(epoch from ${ref}) * 1000) * 1000)::int`,
  ]
}
const [START_MS, START_US] = instant('start_utc')
const [END_MS, END_US] = instant('end_utc')

/** Boolean columns of `cal_event` the model keeps (a filter on a new one: add it here). */
const STORED_FLAGS = ['hide_from_listings', 'featured', 'ticketed', 'sticky'] as const
/**
 * Bits of `EventColumns.flags`: entry i is bit i (`protected`: has a password; `series`:
 * a series row, whose occurrences `series-list.ts` places, never the row itself).
 */
export const FLAG_COLUMNS = [...STORED_FLAGS, 'protected', 'series'] as const
// One byte per event holds the flags; a ninth would need a wider column.
if (FLAG_COLUMNS.length > 8) throw new Error('EventColumns.flags holds 8 flags')

/** A boolean column kept in `EventColumns.flags`. */
export type FlagColumn = (typeof FLAG_COLUMNS)[number]
/** A stored boolean column of `cal_event` kept in `EventColumns.flags`. */
export type StoredFlag = (typeof STORED_FLAGS)[number]

/** The bit of `column` in `EventColumns.flags`. */
export const flagBit = (column: FlagColumn): number => 1 << FLAG_COLUMNS.indexOf(column)

/** Codes of `EventColumns.status`: the index in `POST_STATUSES`. */
export const STATUS_CODE = new Map(POST_STATUSES.map((s, i) => [s, i]))

/** An event's list columns as read from `cal_event`. */
export type EventListRow = Awaited<ReturnType<typeof selectRows>>[number]

/** The list columns of every event, or of `ids`. */
export function selectRows(db: CalDb, ids?: number[]) {
  let q = db.selectFrom('cal_event').select([
    'id',
    'status',
    ...STORED_FLAGS,
    'post_parent',
    'venue_id',
    'term_ids',
    'occurrence_id',
    'search_text',
    START_MS.as('start_ms'),
    START_US.as('start_us'),
    END_MS.as('end_ms'),
    END_US.as('end_us'),
    sql<boolean>`password_hash is not null`.as('protected'),
    sql<boolean>`recurrence is not null`.as('series'),
    // What placing a series' occurrences needs (`SeriesRow`), so a list matches the series
    // here too; null on the other rows, which are most.
    'recurrence',
    'series_slot',
    sql<string | null>`case when recurrence is not null then timezone end`.as('series_zone'),
    sql<boolean | null>`case when recurrence is not null then all_day end`.as('series_all_day'),
    'occurrence_key',
  ])
  if (ids) q = q.where('id', 'in', ids)
  return q.execute()
}
