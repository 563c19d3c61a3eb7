import { sql } from 'kysely'
import { BEFORE_ANY_DATE } from './date-range.js'
import { CalUnknownReferenceError } from './errors.js'
import type { CalEvent, EventListFilter, TermRef } from './event.js'
import { EVENT_COLUMNS, toEvents } from './event-rows.js'
import { checkDate, checkNumber, rejectNul } from './input-guard.js'
import { modifiedConditions } from './modified-filter.js'
import type { ListResult } from './page.js'
import { containsPattern, searchWords } from './search-words.js'
import { type CalDb, checkListLength, emptyList, pageOf, validIds } from './store-context.js'
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

/** One page of events matching `filter`, plus the total; see {@link EventListFilter}. */
export async function listEvents(
  db: CalDb,
  filter: EventListFilter,
): Promise<ListResult<CalEvent>> {
  rejectNul(filter)
  checkDate(filter.window?.start, 'start_date')
  checkDate(filter.window?.end, 'end_date')
  for (const f of ['starts_before', 'starts_after', 'ends_before', 'ends_after'] as const) {
    checkDate(filter[f], f)
  }
  if (filter.near) {
    checkNumber(filter.near.lat, 'geoloc_lat')
    checkNumber(filter.near.lng, 'geoloc_lng')
    checkNumber(filter.near.radius_km, 'geoloc_radius')
  }
  checkListLength(filter.categories, 'categories')
  checkListLength(filter.tags, 'tags')
  const statuses = filter.status ?? ['publish']
  if (statuses.length === 0) return emptyList()
  let q = db.selectFrom('cal_event as e').where('e.status', 'in', statuses)
  for (const condition of modifiedConditions(filter, 'e.modified')) q = q.where(condition)

  if (filter.include !== undefined) {
    const ids = validIds(filter.include, 'include')
    if (ids.length === 0) return emptyList()
    q = q.where('e.id', 'in', ids)
  } else {
    const { window } = filter
    if (window?.start) q = q.where('e.end_utc', '>=', timestampParam(window.start))
    if (window?.end) q = q.where('e.start_utc', '<=', timestampParam(window.end))
    if (filter.starts_before) q = q.where('e.start_utc', '<', timestampParam(filter.starts_before))
    if (filter.starts_after) q = q.where('e.start_utc', '>', timestampParam(filter.starts_after))
    if (filter.ends_before) q = q.where('e.end_utc', '<', timestampParam(filter.ends_before))
    if (filter.ends_after) q = q.where('e.end_utc', '>', timestampParam(filter.ends_after))
    if (!filter.include_hidden) q = q.where('e.hide_from_listings', '=', false)
    const endsFrom = latest(window?.start, filter.ends_after)
    if (endsFrom) {
      const startsFrom = await earliestPossibleStart(db, endsFrom)
      if (startsFrom) q = q.where('e.start_utc', '>=', timestampParam(startsFrom))
    }
  }

  const words = searchWords(filter.search)
  for (const word of words) {
    q = q.where('e.search_text', 'like', sql<string>`lower(${containsPattern(word)})`)
  }
  if (words.length > 0 && !filter.privileged) q = q.where('e.password_hash', 'is', null)

  for (const [taxonomy, field, refs] of [
    ['cal_event_category', 'categories', filter.categories],
    ['cal_event_tag', 'tags', filter.tags],
  ] as const) {
    if (refs === undefined) continue
    const named = await termFilterIds(db, taxonomy, field, refs)
    const ids = field === 'categories' ? await withDescendants(db, named) : named
    if (ids.length === 0) return emptyList()
    // Overlap with the mirrored ids: one GIN index probe (see migration 0006).
    q = q.where(sql<boolean>`e.term_ids && array[${sql.join(ids)}]::integer[]`)
  }
  if (filter.venue !== undefined) {
    const ids = validIds(filter.venue, 'venue')
    if (ids.length === 0) return emptyList()
    q = q.where('e.venue_id', 'in', ids)
  }
  if (filter.organizer !== undefined) {
    const ids = validIds(filter.organizer, 'organizer')
    if (ids.length === 0) return emptyList()
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('cal_event_organizer as eo')
          .select('eo.event_id')
          .whereRef('eo.event_id', '=', 'e.id')
          .where('eo.organizer_id', 'in', ids),
      ),
    )
  }
  if (filter.featured !== undefined) q = q.where('e.featured', '=', filter.featured)
  if (filter.ticketed !== undefined) q = q.where('e.ticketed', '=', filter.ticketed)
  if (filter.post_parent !== undefined) {
    if (validIds([filter.post_parent]).length === 0) return emptyList()
    q = q.where('e.post_parent', '=', filter.post_parent)
  }
  if (filter.geoloc || filter.near) {
    const near = filter.near
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

  const { limit, offset } = pageOf(filter)
  // Count and page run side by side (PostgreSQL may give each parallel workers); the page
  // sorts narrow rows (id, start, sticky) and the full rows are read for its ids alone.
  let page = q.select('e.id')
  if (filter.sticky_first) page = page.orderBy('e.sticky', 'desc')
  const [count, paged] = await Promise.all([
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    page.orderBy('e.start_utc').orderBy('e.id').limit(limit).offset(offset).execute(),
  ])
  const ids = paged.map((r) => r.id)
  const rows = ids.length
    ? await db.selectFrom('cal_event').select(EVENT_COLUMNS).where('id', 'in', ids).execute()
    : []
  const byId = new Map(rows.map((r) => [r.id, r]))
  const ordered = ids.flatMap((id) => {
    const row = byId.get(id)
    return row ? [row] : []
  })
  return { items: await toEvents(db, ordered), total: Number(count.n) }
}
