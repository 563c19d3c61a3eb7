import type { EventListFilter } from '../event.js'
import { flagBit, type StoredFlag } from '../event-list-row.js'
import { defineFilter, type EventFilter } from './event-filter.js'

/**
 * A filter on one stored boolean column of `cal_event` (a flag bit of the list model):
 * `wanted` gives the column value a request asks for, `undefined` for any.
 */
export function flagFilter(
  column: StoredFlag,
  wanted: (filter: EventListFilter) => boolean | undefined,
): EventFilter {
  const bit = flagBit(column)
  return defineFilter<boolean>({
    name: column,
    resolve: wanted,
    scan: (value, query) => query.flag(bit, value),
  })
}
