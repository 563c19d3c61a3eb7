import type { EventListFilter } from './event.js'
import {
  type ActiveFilter,
  type EventFilter,
  type FilterContext,
  NO_MATCH,
} from './event-filters/event-filter.js'
import { EVENT_FILTERS } from './event-filters/filter-list.js'
import { rejectNul } from './input-guard.js'
import { pageOf } from './paging.js'

/**
 * An {@link EventListFilter} checked and resolved: what the list model's scan runs
 * (`event-list-scan.ts`). The rules of each filter live in its module under `event-filters/`;
 * the order and the page are the scan's.
 */
export interface EventListPlan {
  /** The filters the request uses, each bound to its value. */
  filters: ActiveFilter[]
  stickyFirst: boolean
  limit: number
  offset: number
}

/**
 * Checks `filter` (throwing the store's typed errors) and resolves it into a plan, or `null`
 * when the answer is the empty list whatever is stored (no status, an empty or invalid id
 * list, term filters naming no term). `filters`: the registered ones unless a test passes its own.
 */
export async function planEventList(
  filter: EventListFilter,
  context: FilterContext,
  filters: readonly EventFilter[] = EVENT_FILTERS,
): Promise<EventListPlan | null> {
  rejectNul(filter)
  for (const f of filters) f.check(filter)
  const { limit, offset } = pageOf(filter)
  const active: ActiveFilter[] = []
  let none = false
  for (const f of filters) {
    const pending = f.activate(filter, context)
    // Most filters resolve without I/O: no await (and no microtask) for them.
    const resolved = pending instanceof Promise ? await pending : pending
    // Every filter still resolves: a later one naming an unknown term is refused whatever
    // the answer would be (`include=` empty and `categories=0` is a 400, not an empty list).
    if (resolved === NO_MATCH) none = true
    else if (resolved) active.push(resolved)
  }
  if (none) return null
  return { filters: active, stickyFirst: filter.sticky_first === true, limit, offset }
}
