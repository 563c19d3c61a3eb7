import { sql } from 'kysely'
import { BEFORE_ANY_DATE } from './date-range.js'
import { CalUnknownReferenceError } from './errors.js'
import type { CalEvent, EventListFilter, TermRef } from './event.js'
import type { EventListPlan, TermResolver } from './event-list-plan.js'
import { planEventList } from './event-list-plan.js'
import { readEvents } from './event-rows.js'
import { modifiedConditions } from './modified-filter.js'
import type { ListResult } from './page.js'
import { containsPattern } from './search-words.js'
import { type CalDb, emptyList, validIds } from './store-context.js'
import type { Taxonomy } from './term.js'
import { timestampParam } from './timestamp-param.js'

/** Mean earth radius in km used by the great-circle filter. */
export const EARTH_RADIUS_KM = 6371

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

/** Term filters resolved by queries. */
export function sqlTermResolver(db: CalDb): TermResolver {
  return {
    resolve: (taxonomy, field, refs) => termFilterIds(db, taxonomy, field, refs),
    withDescendants: (ids) => withDescendants(db, ids),
  }
}

/** The page of ids and the total of `plan`, by SQL. */
export async function listEventIds(db: CalDb, plan: EventListPlan): Promise<IdPage> {
  let q = db.selectFrom('cal_event as e').where('e.status', 'in', plan.statuses)
  for (const condition of modifiedConditions(plan.modified, 'e.modified')) q = q.where(condition)
  if (plan.include) q = q.where('e.id', 'in', plan.include)
  for (const { column, op, at } of plan.dates) {
    q = q.where(column === 'start' ? 'e.start_utc' : 'e.end_utc', op, timestampParam(at))
  }
  if (plan.excludeHidden) q = q.where('e.hide_from_listings', '=', false)
  if (plan.endsFrom) {
    const startsFrom = await earliestPossibleStart(db, plan.endsFrom)
    if (startsFrom) q = q.where('e.start_utc', '>=', timestampParam(startsFrom))
  }
  for (const word of plan.words) {
    q = q.where('e.search_text', 'like', sql<string>`lower(${containsPattern(word)})`)
  }
  if (plan.publicOnly) q = q.where('e.password_hash', 'is', null)
  for (const ids of plan.termSets) {
    // Overlap with the mirrored ids: one GIN index probe (see migration 0006). One array
    // parameter: a category's descendants are as many as writes made, past any parameter count.
    q = q.where(sql<boolean>`e.term_ids && ${ids}::integer[]`)
  }
  if (plan.venues) q = q.where('e.venue_id', 'in', plan.venues)
  const organizers = plan.organizers
  if (organizers) {
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('cal_event_organizer as eo')
          .select('eo.event_id')
          .whereRef('eo.event_id', '=', 'e.id')
          .where('eo.organizer_id', 'in', organizers),
      ),
    )
  }
  if (plan.featured !== undefined) q = q.where('e.featured', '=', plan.featured)
  if (plan.ticketed !== undefined) q = q.where('e.ticketed', '=', plan.ticketed)
  if (plan.postParent !== undefined) q = q.where('e.post_parent', '=', plan.postParent)
  if (plan.geo) {
    const near = plan.geo.near
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('cal_venue as v')
          .select('v.id')
          .whereRef('v.id', '=', 'e.venue_id')
          .where('v.geo_lat', 'is not', null)
          .where('v.geo_lng', 'is not', null)
          .$if(near !== undefined, (sub) => {
            const { lat, lng, radius_km } = near as NonNullable<typeof near>
            // Haversine distance; least() guards asin against rounding just above 1.
            return sub.where(
              sql<number>`${EARTH_RADIUS_KM}::float8 * 2 * asin(least(1, sqrt(
                power(sin(radians(v.geo_lat - ${lat}::float8) / 2), 2)
                + cos(radians(${lat}::float8)) * cos(radians(v.geo_lat))
                * power(sin(radians(v.geo_lng - ${lng}::float8) / 2), 2))))`,
              '<=',
              sql<number>`${radius_km}::float8`,
            )
          }),
      ),
    )
  }
  // Count and page run side by side (PostgreSQL may give each parallel workers); the page
  // sorts narrow rows (id, start, sticky) and the full rows are read for its ids alone.
  let page = q.select('e.id')
  if (plan.stickyFirst) page = page.orderBy('e.sticky', 'desc')
  const [count, paged] = await Promise.all([
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    page.orderBy('e.start_utc').orderBy('e.id').limit(plan.limit).offset(plan.offset).execute(),
  ])
  return { ids: paged.map((r) => r.id), total: Number(count.n) }
}

/** A page of ids and the total of a plan. */
export interface IdPage {
  ids: number[]
  total: number
}

/** An index of the events at one data revision (see `event-list-model.ts`). */
export interface EventIdSnapshot {
  /** Term filters resolved against the index's copy of the terms. */
  terms: TermResolver
  /** `plan`'s page, or `undefined` to leave the plan to SQL. */
  list(plan: EventListPlan): Promise<IdPage | undefined>
}

/** Answers lists from memory when it can. */
export interface EventIdIndex {
  /** A snapshot at least as new as the data revision now, or `undefined`: use SQL. */
  current(): Promise<EventIdSnapshot | undefined>
}

/**
 * One page of events matching `filter`, plus the total; see {@link EventListFilter}. With an
 * `index` (a list model), the ids come from memory whenever it serves the plan.
 */
export async function listEvents(
  db: CalDb,
  filter: EventListFilter,
  index?: EventIdIndex,
): Promise<ListResult<CalEvent>> {
  const snapshot = await index?.current()
  const plan = await planEventList(filter, snapshot?.terms ?? sqlTermResolver(db))
  if (!plan) return emptyList()
  const found = (await snapshot?.list(plan)) ?? (await listEventIds(db, plan))
  return { items: await readEvents(db, found.ids), total: found.total }
}
