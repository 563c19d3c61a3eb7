import type { DateBound } from '../date-bound.js'
import type { EventListFilter } from '../event.js'
import { checkDate } from '../input-guard.js'
import { defineFilter } from './event-filter.js'

export interface DateBounds {
  bounds: DateBound[]
  /** Latest "ends at or after" bound (for the start-index bound of a window). */
  endsFrom?: Date
}

const FIELDS = ['starts_before', 'starts_after', 'ends_before', 'ends_after'] as const

/** The latest of two optional instants. */
const latest = (a?: Date, b?: Date) => (a && b ? (a > b ? a : b) : (a ?? b))

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
  const bound = (column: DateBound['column'], op: DateBound['op'], at?: Date) => {
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
  scan({ bounds, endsFrom }, query) {
    for (const { column, op, at } of bounds) {
      if (column === 'start') query.start(op, at.getTime())
      else query.end(op, at.getTime())
    }
    // No event ending at or after `endsFrom` starts before it less the longest duration: a
    // bound on the start order, so a window's scan begins there, not at the oldest event.
    if (endsFrom) query.start('>=', endsFrom.getTime() - query.columns.maxDurationMs - 1)
  },
})
