import type { EventListFilter } from './event.js'
import type { ActiveFilter } from './event-filters/event-filter.js'
import type { EventListPlan } from './event-list-plan.js'
import { validIds } from './id-list.js'
import { decodeOccurrenceId, isEventId } from './series-ids.js'

/** Filters placing occurrences by their own start, end and id, not by the series row. */
const OCCURRENCE_FILTERS = new Set(['dates', 'include', 'post_parent'])

/** The filters of `plan` a series row is matched by: all but the ones placing occurrences. */
export const seriesFilters = (plan: EventListPlan): ActiveFilter[] =>
  plan.filters.filter((f) => !OCCURRENCE_FILTERS.has(f.name))

/**
 * What `include` and `post_parent` ask of a series row: its id or slot among `include`'s
 * (each part `undefined` when not given), its id `post_parent`.
 */
function seriesNames(filter: EventListFilter) {
  const ids = filter.include?.filter(isEventId)
  return {
    include: ids && {
      serial: validIds(ids),
      slots: ids.flatMap((id) => decodeOccurrenceId(id)?.slot ?? []),
    },
    parent: filter.post_parent,
  }
}

/** Whether `filter`'s `include` and `post_parent` leave the series `row` (see `seriesNames`). */
export function seriesNamedBy(
  filter: EventListFilter,
): (row: { id: number; series_slot: number | null }) => boolean {
  const { include, parent } = seriesNames(filter)
  if (!include && parent === undefined) return () => true
  const serial = new Set(include?.serial)
  const slots = new Set(include?.slots)
  return (row) =>
    (!include || serial.has(row.id) || (row.series_slot !== null && slots.has(row.series_slot))) &&
    (parent === undefined || row.id === parent)
}
