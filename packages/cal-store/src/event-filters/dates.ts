import { sql } from 'kysely'
import { BEFORE_ANY_DATE } from '../date-range.js'
import type { EventListFilter } from '../event.js'
import { checkDate } from '../input-guard.js'
import type { BoundOp } from '../scan-query.js'
import type { CalDb } from '../store-context.js'
import { timestampParam } from '../timestamp-param.js'
import { defineFilter } from './event-filter.js'

/** An instant bound on an event's start or end. */
export interface DateBound {
  column: 'start' | 'end'
  op: BoundOp
  at: Date
}

export interface DateBounds {
  bounds: DateBound[]
  /** Latest "ends at or after" bound (for the start-index bound of a window). */
  endsFrom?: Date
}

const FIELDS = ['starts_before', 'starts_after', 'ends_before', 'ends_after'] as const

/** The latest of two optional instants. */
const latest = (a?: Date, b?: Date) => (a && b ? (a > b ? a : b) : (a ?? b))

/**
 * No event ending at or after `endsFrom` can start before `endsFrom` minus the longest stored
 * duration. The list orders by start, so this redundant bound lets page 1 of an "upcoming"
 * window walk the start index from the window instead of from the oldest event (one probe of
 * the duration index). Null on an empty table, and null when the bound falls before every
 * storable date: an event may span 1000…9999, and `endsFrom` minus 9,000 years is a year
 * no SQL timestamp takes (and would filter nothing anyway).
 */
async function earliestPossibleStart(db: CalDb, endsFrom: Date): Promise<Date | null> {
  const row = await db
    .selectFrom('cal_event')
    .select(sql<number | null>`extract(epoch from max(end_utc - start_utc))::float8`.as('s'))
    .executeTakeFirst()
  const seconds = row?.s
  if (seconds == null) return null
  const bound = endsFrom.getTime() - seconds * 1000
  return bound > BEFORE_ANY_DATE.getTime() ? new Date(bound) : null
}

/**
 * The date bounds of `filter`: the overlap window (ends at or after its start, starts at or
 * before its end) and the four exclusive bounds; `undefined` when there are none or an
 * `include` list sets them aside. Series occurrences are placed by the same bounds
 * (`series-list.ts`).
 */
export function dateBoundsOf(filter: EventListFilter): DateBounds | undefined {
  if (filter.include !== undefined) return undefined
  const { window } = filter
  const bounds: DateBound[] = []
  const bound = (column: DateBound['column'], op: BoundOp, at?: Date) => {
    if (at) bounds.push({ column, op, at })
  }
  bound('end', '>=', window?.start)
  bound('start', '<=', window?.end)
  bound('start', '<', filter.starts_before)
  bound('start', '>', filter.starts_after)
  bound('end', '<', filter.ends_before)
  bound('end', '>', filter.ends_after)
  return bounds.length ? { bounds, endsFrom: latest(window?.start, filter.ends_after) } : undefined
}

/** The date bounds ({@link dateBoundsOf}) as a list filter. */
export const dates = defineFilter<DateBounds>({
  name: 'dates',
  check(filter) {
    checkDate(filter.window?.start, 'start_date')
    checkDate(filter.window?.end, 'end_date')
    for (const field of FIELDS) checkDate(filter[field], field)
  },
  resolve: dateBoundsOf,
  async where({ bounds, endsFrom }, { eb, db }) {
    const conditions = bounds.map(({ column, op, at }) =>
      eb(column === 'start' ? 'e.start_utc' : 'e.end_utc', op, timestampParam(at)),
    )
    const startsFrom = endsFrom && (await earliestPossibleStart(db, endsFrom))
    if (startsFrom) conditions.push(eb('e.start_utc', '>=', timestampParam(startsFrom)))
    return eb.and(conditions)
  },
  memory: {
    scan({ bounds, endsFrom }, query) {
      for (const { column, op, at } of bounds) {
        if (column === 'start') query.start(op, at.getTime())
        else query.end(op, at.getTime())
      }
      if (endsFrom) query.start('>=', endsFrom.getTime() - query.columns.maxDurationMs - 1)
    },
  },
})
