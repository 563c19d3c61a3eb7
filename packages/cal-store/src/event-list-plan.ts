import type { EventListFilter, GeoFilter, TermRef } from './event.js'
import { checkDate, checkNumber, rejectNul } from './input-guard.js'
import { modifiedConditions } from './modified-filter.js'
import { searchWords } from './search-words.js'
import type { PostStatus } from './status.js'
import { checkListLength, pageOf, requestIds, validIds } from './store-context.js'
import type { Taxonomy } from './term.js'

/** An instant bound on an event's start or end, as the SQL operators put it. */
export interface DateBound {
  column: 'start' | 'end'
  op: '<' | '<=' | '>' | '>='
  at: Date
}

/** How a list plan turns term filters into ids: from the database or from a loaded model. */
export interface TermResolver {
  /** Ids of `refs` (numbers ids, strings slugs) in `taxonomy`; unknown → `CalUnknownReferenceError` on `field`. */
  resolve(taxonomy: Taxonomy, field: string, refs: readonly TermRef[]): Promise<number[]>
  /** `ids` and every category below them. */
  withDescendants(ids: number[]): Promise<number[]>
}

/**
 * An {@link EventListFilter} checked and resolved: what both list executors (SQL in
 * `event-list.ts`, memory in `event-list-model.ts`) run, so the rules of a filter (defaults,
 * which bounds `include` overrides, when an empty list answers at once) live here only.
 */
export interface EventListPlan {
  statuses: PostStatus[]
  /** Only these ids; the date bounds and the hidden rule then do not apply. */
  include?: number[]
  dates: DateBound[]
  /** Latest "ends at or after" bound (for the start-index bound of a window). */
  endsFrom?: Date
  excludeHidden: boolean
  /** Search words as given (each must occur in title, description or excerpt). */
  words: string[]
  /** Leave password-protected events out (a search without a token). */
  publicOnly: boolean
  /** Each entry: the event must carry one of these term ids. */
  termSets: number[][]
  venues?: number[]
  organizers?: number[]
  featured?: boolean
  ticketed?: boolean
  postParent?: number
  /** Only events whose venue has coordinates (and lies near `near` if given). */
  geo?: { near?: GeoFilter }
  modified: Pick<EventListFilter, 'modified_after' | 'modified_before'>
  stickyFirst: boolean
  limit: number
  offset: number
}

/** The latest of two optional instants. */
const latest = (a?: Date, b?: Date) => (a && b ? (a > b ? a : b) : (a ?? b))

/**
 * Checks `filter` (throwing the store's typed errors) and resolves it into a plan, or `null`
 * when the answer is the empty list whatever is stored (no status, an empty or invalid id
 * list, term filters naming no term).
 */
export async function planEventList(
  filter: EventListFilter,
  terms: TermResolver,
): Promise<EventListPlan | null> {
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
  if (statuses.length === 0) return null
  modifiedConditions(filter, 'modified')
  const { limit, offset } = pageOf(filter)
  const plan: EventListPlan = {
    statuses,
    dates: [],
    excludeHidden: false,
    words: searchWords(filter.search),
    publicOnly: false,
    termSets: [],
    modified: { modified_after: filter.modified_after, modified_before: filter.modified_before },
    stickyFirst: filter.sticky_first === true,
    limit,
    offset,
  }
  if (filter.include !== undefined) {
    plan.include = requestIds(filter.include, 'include')
    if (plan.include.length === 0) return null
  } else {
    const { window } = filter
    const bound = (column: DateBound['column'], op: DateBound['op'], at?: Date) => {
      if (at) plan.dates.push({ column, op, at })
    }
    bound('end', '>=', window?.start)
    bound('start', '<=', window?.end)
    bound('start', '<', filter.starts_before)
    bound('start', '>', filter.starts_after)
    bound('end', '<', filter.ends_before)
    bound('end', '>', filter.ends_after)
    plan.excludeHidden = !filter.include_hidden
    plan.endsFrom = latest(window?.start, filter.ends_after)
  }
  plan.publicOnly = plan.words.length > 0 && !filter.privileged
  for (const [taxonomy, field, refs] of [
    ['cal_event_category', 'categories', filter.categories],
    ['cal_event_tag', 'tags', filter.tags],
  ] as const) {
    if (refs === undefined) continue
    const named = await terms.resolve(taxonomy, field, refs)
    const ids = field === 'categories' ? await terms.withDescendants(named) : named
    if (ids.length === 0) return null
    plan.termSets.push(ids)
  }
  if (filter.venue !== undefined) {
    plan.venues = requestIds(filter.venue, 'venue')
    if (plan.venues.length === 0) return null
  }
  if (filter.organizer !== undefined) {
    plan.organizers = requestIds(filter.organizer, 'organizer')
    if (plan.organizers.length === 0) return null
  }
  plan.featured = filter.featured
  plan.ticketed = filter.ticketed
  if (filter.post_parent !== undefined) {
    if (validIds([filter.post_parent]).length === 0) return null
    plan.postParent = filter.post_parent
  }
  if (filter.geoloc || filter.near) plan.geo = { near: filter.near }
  return plan
}
