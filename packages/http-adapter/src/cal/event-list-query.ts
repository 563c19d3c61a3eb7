import type { EventListFilter, TermRef } from '@cal/store'
import { endOfDayInstant, startOfDayInstant } from '@cal/store'
import { z } from 'zod'
import { type CalContext, callerOf } from './cal-context.js'
import { invalidParams } from './cal-error.js'
import { wantsCalendar } from './feed-format.js'
import { modifiedQuery, toModifiedFilter } from './modified-query.js'
import { type DateInput, isDateInput, parseDateInput, readDateInput } from './parse-date-input.js'
import {
  eventIdList,
  idList,
  idParam,
  paging,
  pagingQuery,
  queryBoolean,
  stringList,
} from './request-schemas.js'
import { fieldsQuery } from './sparse-fields.js'
import { resolveStatuses, statusQuery } from './status-query.js'

const dateQuery = (description: string) =>
  z
    .string()
    .refine(
      isDateInput,
      'must be a date (YYYY-MM-DD), date-time (YYYY-MM-DD HH:MM:SS) or Unix timestamp',
    )
    .optional()
    .describe(description)

const coordinate = (max: number) =>
  z
    .string()
    .regex(/^-?\d{1,3}(\.\d+)?$/, 'must be a number')
    .transform(Number)
    .pipe(z.number().min(-max).max(max))

/** Query of `GET /events`. */
export const eventListQuery = z.object({
  ...pagingQuery,
  start_date: dateQuery('Window start: events ending at or after it (default today 00:00:00)'),
  end_date: dateQuery('Window end: events starting at or before it (default now + 24 months)'),
  starts_before: dateQuery('Only events starting before this (exclusive)'),
  starts_after: dateQuery('Only events starting after this (exclusive)'),
  ends_before: dateQuery('Only events ending before this (exclusive)'),
  ends_after: dateQuery('Only events ending after this (exclusive)'),
  strict_dates: queryBoolean
    .optional()
    .describe(
      'true: use the exact times given; false (default): widen each bound to its whole day',
    ),
  search: z
    .string()
    .optional()
    .describe('Words that must all appear in title, description or excerpt'),
  categories: stringList.optional().describe('Category ids or slugs (any of)'),
  tags: stringList.optional().describe('Tag ids or slugs (any of)'),
  venue: idList.optional().describe('Venue ids (any of)'),
  organizer: idList.optional().describe('Organizer ids (any of)'),
  featured: queryBoolean.optional().describe('Only featured (true) or non-featured (false) events'),
  ticketed: queryBoolean.optional().describe('Only ticketed (true) or non-ticketed (false) events'),
  include: eventIdList
    .optional()
    .describe('Only these event ids (occurrence ids too); date filters are ignored'),
  post_parent: idParam
    .optional()
    .describe('Only events whose post_parent is this id: the occurrences of this series'),
  geoloc: queryBoolean.optional().describe('true: only events whose venue has coordinates'),
  geoloc_lat: coordinate(90).optional().describe('Latitude of the centre (with geoloc_lng)'),
  geoloc_lng: coordinate(180).optional().describe('Longitude of the centre (with geoloc_lat)'),
  geoloc_radius: z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'must be a non-negative number of km')
    .transform(Number)
    .optional()
    .describe('Radius in km around geoloc_lat/lng (default 10)'),
  hide_from_listings: queryBoolean
    .optional()
    .describe('Default true: leave out events hidden from listings; false lists them too'),
  sticky: queryBoolean.optional().describe('true: sticky events first'),
  status: statusQuery,
  ...modifiedQuery,
  ...fieldsQuery,
  format: z
    .enum(['json', 'ics'])
    .optional()
    .describe(
      'ics: the whole filtered list (no paging, at most 5,000 events) as an iCalendar (text/calendar) feed; also chosen by Accept: text/calendar',
    ),
})

/** The parsed query of `GET /events`. */
export type EventListQuery = z.output<typeof eventListQuery>

/** A numeric entry is an id, anything else a slug. */
const termRefs = (values: string[] | undefined): TermRef[] | undefined =>
  values?.length ? values.map((v) => (/^\d+$/.test(v) ? Number(v) : v)) : undefined

/**
 * Translates the query into the store's filter: the default window (today 00:00:00 … now + 24
 * months, service zone) unless a `starts_*`/`ends_*` bound is given; day widening unless
 * `strict_dates`; geolocation pairs checked (400 when only one of lat/lng is given).
 */
export function toEventFilter(
  q: EventListQuery,
  ctx: CalContext,
): Omit<EventListFilter, 'status' | 'privileged' | 'limit' | 'offset'> {
  if ((q.geoloc_lat === undefined) !== (q.geoloc_lng === undefined)) {
    const missing = q.geoloc_lat === undefined ? 'geoloc_lat' : 'geoloc_lng'
    throw invalidParams({ [missing]: 'geoloc_lat and geoloc_lng must be given together' })
  }
  const now = ctx.now()
  const zone = ctx.timezone
  const strict = q.strict_dates === true
  // Without strict_dates the time of day is replaced as the original does: 00:00:00 for
  // `start_date`, 23:59:59 for `end_date` and all four relative bounds.
  const bound = (field: keyof EventListQuery, side: 'lower' | 'upper'): Date | undefined => {
    const text = q[field]
    if (typeof text !== 'string') return undefined
    const parsed = readDateInput(text, zone, now, field)
    if (strict && !parsed.dateOnly) return parsed.instant
    return side === 'lower'
      ? startOfDayInstant(parsed.wall, zone)
      : endOfDayInstant(parsed.wall, zone)
  }
  const explicit =
    q.starts_before !== undefined ||
    q.starts_after !== undefined ||
    q.ends_before !== undefined ||
    q.ends_after !== undefined
  let windowStart = bound('start_date', 'lower')
  let windowEnd = bound('end_date', 'upper')
  if (!explicit) {
    if (windowStart === undefined) {
      const today = parseDateInput('today', zone, now) as DateInput
      windowStart = today.instant
    }
    if (windowEnd === undefined) {
      // Whole seconds, the precision of the API's dates: every default list in the same
      // second is then the same filter, so the store's list cache can serve it.
      const later = new Date(Math.floor(now.getTime() / 1000) * 1000)
      later.setUTCMonth(later.getUTCMonth() + 24)
      windowEnd = later
    }
  }
  const filter: Omit<EventListFilter, 'status' | 'privileged' | 'limit' | 'offset'> = {
    window: windowStart || windowEnd ? { start: windowStart, end: windowEnd } : undefined,
    starts_before: bound('starts_before', 'upper'),
    starts_after: bound('starts_after', 'upper'),
    ends_before: bound('ends_before', 'upper'),
    ends_after: bound('ends_after', 'upper'),
    search: q.search?.trim() ? q.search : undefined,
    categories: termRefs(q.categories),
    tags: termRefs(q.tags),
    venue: q.venue?.length ? q.venue : undefined,
    organizer: q.organizer?.length ? q.organizer : undefined,
    featured: q.featured,
    ticketed: q.ticketed,
    include: q.include?.length ? q.include : undefined,
    post_parent: q.post_parent,
    geoloc: q.geoloc,
    near:
      q.geoloc_lat !== undefined && q.geoloc_lng !== undefined
        ? { lat: q.geoloc_lat, lng: q.geoloc_lng, radius_km: q.geoloc_radius ?? 10 }
        : undefined,
    include_hidden: q.hide_from_listings === false,
    sticky_first: q.sticky === true,
    ...toModifiedFilter(q, ctx),
  }
  return filter
}

/** A `GET /events` request as the store and the renderers take it. */
export interface EventListRequest {
  /** The store's filter: of one page, or (`feed`) of the whole feed. */
  filter: EventListFilter
  /** The iCalendar feed (`format=ics` or `Accept: text/calendar`) instead of a JSON page. */
  feed: boolean
  /** The caller holds a token: sees every status but trash, and protected events' text. */
  privileged: boolean
  page: number
  perPage: number
  /** `_fields`. */
  fields?: string[]
}

/**
 * Reads a `GET /events` request into the store's filter, in one place: the caller's statuses
 * (401 for an anonymous caller asking for more than `publish`), the dates and bounds
 * ({@link toEventFilter}), paging, and whether the feed is asked for.
 */
export function readEventList(
  query: EventListQuery,
  request: Request,
  ctx: CalContext,
): EventListRequest {
  const caller = callerOf(ctx, request)
  const status = resolveStatuses(query.status, caller)
  const privileged = caller.authenticated
  const base = { ...toEventFilter(query, ctx), status, privileged }
  const feed = wantsCalendar(query.format, request.headers.get('accept'))
  const { page, perPage, limit, offset } = paging(query)
  return {
    filter: feed ? base : { ...base, limit, offset },
    feed,
    privileged,
    page,
    perPage,
    fields: query._fields,
  }
}
