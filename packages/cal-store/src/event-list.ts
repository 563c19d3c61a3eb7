import { expressionBuilder, sql } from 'kysely'
import { CalUnknownReferenceError } from './errors.js'
import type { CalEvent, EventListFilter, TermRef } from './event.js'
import type { EventListTables, SqlContext } from './event-filters/event-filter.js'
import { type EventListPlan, planEventList } from './event-list-plan.js'
import { readEvents } from './event-rows.js'
import { validIds } from './id-list.js'
import type { IdPage } from './id-page.js'
import type { ListResult } from './page.js'
import { emptyList } from './paging.js'
import { listSeriesRows, listWithSeries, matchingSeries } from './series-list.js'
import type { SeriesRow } from './series-row.js'
import type { CalDb } from './store-context.js'
import type { Taxonomy } from './term.js'
import type { TermResolver } from './term-resolver.js'

/** Term ids for filter refs: numbers are ids, strings slugs; unknown ones throw. */
async function termFilterIds(
  db: CalDb,
  taxonomy: Taxonomy,
  field: string,
  refs: readonly TermRef[],
): Promise<number[]> {
  const ids = refs.filter((r): r is number => typeof r === 'number')
  const slugs = refs.filter((r): r is string => typeof r === 'string')
  const valid = validIds(ids)
  const rows =
    valid.length + slugs.length === 0
      ? []
      : await db
          .selectFrom('cal_term')
          .select(['id', 'slug'])
          .where('taxonomy', '=', taxonomy)
          .where((eb) => {
            const parts = []
            if (valid.length) parts.push(eb('id', 'in', valid))
            if (slugs.length) parts.push(eb('slug', 'in', slugs))
            return eb.or(parts)
          })
          .execute()
  const knownIds = new Set(rows.map((r) => r.id))
  const knownSlugs = new Set(rows.map((r) => r.slug))
  for (const ref of refs) {
    if (typeof ref === 'number' ? !knownIds.has(ref) : !knownSlugs.has(ref)) {
      throw new CalUnknownReferenceError(field, ref)
    }
  }
  return rows.map((r) => r.id)
}

/**
 * The given category ids and every category below them (TEC's `categories=<parent>` also
 * matches events filed under a child). `union` (not `union all`) drops rows already found, so
 * the walk ends even if a parent cycle slipped into the tree.
 */
async function withDescendants(db: CalDb, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return ids
  const result = await sql<{ id: number }>`
    with recursive tree(id) as (
      select id from cal_term where id in (${sql.join(ids)})
      union
      select t.id from cal_term t join tree on t.parent_id = tree.id
    )
    select id from tree`.execute(db)
  return result.rows.map((r) => r.id)
}

/** Term filters resolved by queries. */
export function sqlTermResolver(db: CalDb): TermResolver {
  return {
    resolve: (taxonomy, field, refs) => termFilterIds(db, taxonomy, field, refs),
    withDescendants: (ids) => withDescendants(db, ids),
  }
}

/** The page of ids and the total of `plan`, by SQL: each filter's condition, ANDed. */
export async function listEventIds(db: CalDb, plan: EventListPlan): Promise<IdPage> {
  const context: SqlContext = { eb: expressionBuilder<EventListTables, 'e'>(), db }
  // Series rows are listed as their occurrences (`series-list.ts`), never as rows.
  let q = db.selectFrom('cal_event as e').where('e.recurrence', 'is', null)
  for (const condition of await Promise.all(plan.filters.map((f) => f.where(context)))) {
    q = q.where(condition)
  }
  // Count and page run side by side (PostgreSQL may give each parallel workers); the page
  // sorts narrow rows (id, start, sticky) and the full rows are read for its ids alone.
  let page = q.select([
    'e.id',
    sql<number>`floor(extract(epoch from e.start_utc) * 1000)::float8`.as('start_ms'),
  ])
  if (plan.stickyFirst) page = page.orderBy('e.sticky', 'desc')
  const [count, paged] = await Promise.all([
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    page.orderBy('e.start_utc').orderBy('e.id').limit(plan.limit).offset(plan.offset).execute(),
  ])
  return {
    ids: paged.map((r) => r.id),
    starts: Float64Array.from(paged, (r) => Number(r.start_ms)),
    total: Number(count.n),
  }
}

/** An index of the events at one data revision (see `event-list-model.ts`). */
export interface EventIdSnapshot {
  /** Term filters resolved against the index's copy of the terms. */
  terms: TermResolver
  /** `plan`'s page, or `undefined` to leave the plan to SQL. */
  list(plan: EventListPlan): Promise<IdPage | undefined>
  /** The series `plan` and `filter` match (see `matchingSeries`), or `undefined`: use SQL. */
  series(plan: EventListPlan, filter: EventListFilter): Promise<SeriesRow[] | undefined>
}

/** Answers lists from memory when it can. */
export interface EventIdIndex {
  /** A snapshot at least as new as `revision` (a reader's), or `undefined`: use SQL. */
  at(revision: number): Promise<EventIdSnapshot | undefined>
}

/**
 * One page of events matching `filter`, plus the total; see {@link EventListFilter}. With an
 * `index` (a list model) and the reader's `revision`, the ids come from memory whenever it
 * serves the plan.
 */
export async function listEvents(
  db: CalDb,
  filter: EventListFilter,
  index?: { model: EventIdIndex; revision: number },
): Promise<ListResult<CalEvent>> {
  const snapshot = await index?.model.at(index.revision)
  const plan = await planEventList(filter, snapshot?.terms ?? sqlTermResolver(db))
  if (!plan) return emptyList()
  const singles = async (p: EventListPlan) =>
    (await snapshot?.list(p)) ?? (await listEventIds(db, p))
  const series = (await snapshot?.series(plan, filter)) ?? (await matchingSeries(db, plan, filter))
  if (filter.series_rows) return listSeriesRows(db, filter, series, await singles(plan))
  if (series.length === 0) {
    const found = await singles(plan)
    return { items: await readEvents(db, found.ids), total: found.total }
  }
  return listWithSeries(db, plan, filter, series, singles)
}
