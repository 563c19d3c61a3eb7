import type { CalEvent, EventListFilter } from './event.js'
import { type EventListPlan, planEventList } from './event-list-plan.js'
import { readEvents } from './event-rows.js'
import type { IdPage } from './id-page.js'
import type { ListResult } from './page.js'
import { emptyList } from './paging.js'
import { listSeriesRows, listWithSeries } from './series-list.js'
import type { SeriesRow } from './series-row.js'
import type { CalDb } from './store-context.js'
import type { TermResolver } from './term-resolver.js'

/**
 * The list model at one data revision (`event-list-model.ts`): what an event list is read
 * from. Each read answers at that revision, or throws {@link ModelMoved} once the model has
 * moved past it (its columns change in place).
 */
export interface EventListView {
  /** Term refs resolved against the model's copy of the terms. */
  terms: TermResolver
  /** Search words lowered as the database's `lower()` does. */
  lower(words: readonly string[]): Promise<string[]>
  /** `plan`'s page of single events. */
  list(plan: EventListPlan): IdPage
  /** The series rows `plan` and `filter` match (see `seriesFilters`). */
  series(plan: EventListPlan, filter: EventListFilter): SeriesRow[]
}

/** The list model moved past the revision a list was read at: read it again, at a newer one. */
export class ModelMoved extends Error {
  constructor() {
    super('the list model moved past the snapshot')
    this.name = 'ModelMoved'
  }
}

/**
 * One page of events matching `filter`, plus the total; see {@link EventListFilter}. `view` is
 * the list model at the revision of `snapshot`, where the page's records are read.
 */
export async function listEvents(
  snapshot: CalDb,
  filter: EventListFilter,
  view: EventListView,
): Promise<ListResult<CalEvent>> {
  const plan = await planEventList(filter, { terms: view.terms, lower: view.lower, db: snapshot })
  if (!plan) return emptyList()
  const series = view.series(plan, filter)
  if (filter.series_rows) return listSeriesRows(snapshot, filter, series, view.list(plan))
  if (series.length === 0) {
    const found = view.list(plan)
    return { items: await readEvents(snapshot, found.ids), total: found.total }
  }
  return listWithSeries(snapshot, plan, filter, series, (p) => view.list(p))
}
