import type { RecurrenceInput } from '@cal/recurrence'
import type { ModifiedFilter } from './modified-filter.js'
import type { OrganizerInput } from './organizer.js'
import type { Page } from './page.js'
import type { PostStatus } from './status.js'
import type { VenueInput } from './venue.js'

/**
 * Cost as written by the client: one string (`"20$"`, `"10,20"`) or a list of strings. The store
 * keeps it verbatim; parsing and formatting (`cost_details`, `Free – 30$`) belong to the API.
 */
export type Cost = string | string[]

/**
 * An event as stored. Instants are UTC `Date`s; `timezone` is the zone to render local times in.
 * Related records come as ids, in their stored order; fetch them in one query each with
 * `venues.getMany`, `organizers.getMany`, `categories.getMany`, `tags.getMany`.
 */
/** The event's on/off settings, stored as boolean columns of the same names (default false). */
export const EVENT_FLAGS = [
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'ticketed',
] as const

export interface CalEvent {
  id: number
  author: number
  status: PostStatus
  /** Creation instant (UTC); the API's `date`. */
  created: Date
  /** Last modification instant (UTC); the API's `modified`. */
  modified: Date
  /** 0 when created, one more after each update of the row (iCalendar `SEQUENCE`). */
  sequence: number
  title: string
  description: string
  excerpt: string
  slug: string
  /** Image URL, or `null` (the API renders `false`). */
  image: string | null
  all_day: boolean
  /** Start instant (UTC). For all-day events: 00:00:00 of the first day in `timezone`. */
  start: Date
  /** End instant (UTC). For all-day events: 23:59:59 of the last day in `timezone`. */
  end: Date
  /** IANA zone name (`America/New_York`) or fixed offset `UTC`, `UTC+2`, `UTC-3:30`. */
  timezone: string
  /** Cost as written, or `null`. */
  cost: Cost | null
  website: string | null
  show_map: boolean
  show_map_link: boolean
  hide_from_listings: boolean
  sticky: boolean
  featured: boolean
  ticketed: boolean
  /** Recurring-series parent event id, or `null`. */
  post_parent: number | null
  /** True when the event has a password (the hash itself is never returned). */
  password_protected: boolean
  venue_id: number | null
  /** Organizer ids in the order they were given. */
  organizer_ids: number[]
  /** Category ids, ascending. */
  category_ids: number[]
  /** Tag ids, ascending. */
  tag_ids: number[]
  /**
   * The rules of the series this event is an occurrence of (a series' own record is its first
   * occurrence), or `null` for a single event.
   */
  recurrence?: RecurrenceInput | null
  /** An occurrence's original start (RFC 5545 RECURRENCE-ID), or `null` for a single event. */
  occurrence_start?: Date | null
  /** True for an edited occurrence (an override: a record of its own, `scope=this`). */
  edited?: boolean
  /**
   * A series' own record in a list with `series_rows`: the original starts of its edited
   * occurrences (each an `edited` record of its own).
   */
  edited_starts?: Date[]
}

/** A venue reference on an event write: an id, or fields of a venue (reused by name, else created). */
export type VenueRef = number | VenueInput

/** An organizer reference: an id, or fields of an organizer (reused by name, else created). */
export type OrganizerRef = number | OrganizerInput

/**
 * A term reference on an event write: a number is an id (must exist); a string is a name:
 * an existing term of that taxonomy with that name (case-insensitive, lowest id) is used, else a
 * root term is created.
 */
export type TermRef = number | string

/**
 * Fields to create an event. Required: `title`, `start`, `end` (UTC instants). Everything else
 * defaults to empty / false / `publish` / zone `UTC`. When `all_day` is true the store widens
 * start and end to 00:00:00 of the start day and 23:59:59 of the end day in `timezone`.
 */
export interface EventInput {
  title: string
  start: Date
  end: Date
  /** IANA name or `UTC±H[:MM]`; default `UTC`. Invalid → `CalValidationError` on `timezone`. */
  timezone?: string
  /** Wanted slug; derived from `title` when absent. Suffixed `-2`, `-3`, … when taken. */
  slug?: string | null
  status?: PostStatus
  author?: number
  description?: string | null
  excerpt?: string | null
  image?: string | null
  all_day?: boolean
  cost?: Cost | null
  website?: string | null
  show_map?: boolean
  show_map_link?: boolean
  hide_from_listings?: boolean
  sticky?: boolean
  featured?: boolean
  ticketed?: boolean
  /** Must name an existing event (else `CalUnknownReferenceError` on `post_parent`). */
  post_parent?: number | null
  /** Plain password; stored as a scrypt hash. `null`/`""` = no password. */
  password?: string | null
  venue?: VenueRef | null
  organizers?: OrganizerRef[]
  categories?: TermRef[]
  tags?: TermRef[]
  /** Override the creation instant (seeding, imports); defaults to now. */
  created?: Date
  /**
   * Makes the event a series: RFC 5545 rules, rdates and exdates (`RecurrenceInput`, checked
   * by the recurrence core; a refusal is a `CalValidationError` on `recurrence`). `start`/`end`
   * give the first occurrence. `null` on an update makes a series a single event.
   */
  recurrence?: unknown
}

/**
 * Which occurrences of a series a write on one of them changes: `this` one (an override, or an
 * exception date on delete), this and the `following` ones (the series is split), or `all`.
 */
export type SeriesScope = 'this' | 'following' | 'all'

/**
 * A partial update: absent fields stay unchanged; `null` clears an optional field (`venue: null`
 * drops the venue, `organizers: []` drops every organizer). Relation lists replace the old list.
 */
export type EventPatch = { [K in keyof Omit<EventInput, 'created'>]?: EventInput[K] | null }

/** A great-circle distance filter around a point, in kilometres (haversine, earth radius 6371 km). */
export interface GeoFilter {
  lat: number
  lng: number
  /** Radius in km. */
  radius_km: number
}

/**
 * Filters of {@link EventRepository.list}; every one given must match (AND). Order: start
 * ascending, then id (with `sticky_first`, sticky events come first).
 */
export interface EventListFilter extends Page, ModifiedFilter {
  /**
   * Overlap window: an event matches when it ends at or after `window.start` and starts at or
   * before `window.end`. Either side may be absent (unbounded). The caller computes the
   * defaults (today 00:00 … now + 24 months) and drops them when explicit bounds are given.
   */
  window?: { start?: Date; end?: Date }
  /** Exclusive: start < this. */
  starts_before?: Date
  /** Exclusive: start > this. */
  starts_after?: Date
  /** Exclusive: end < this. */
  ends_before?: Date
  /** Exclusive: end > this. */
  ends_after?: Date
  /**
   * Words (split on white space), all required, each case-insensitively inside title,
   * description or excerpt. Password-protected events never match unless `privileged`.
   */
  search?: string
  /** The caller holds a token: search looks inside password-protected events too. */
  privileged?: boolean
  /** Any-of: category ids or slugs, each with its descendants. Unknown → `CalUnknownReferenceError` on `categories`. */
  categories?: TermRef[]
  /** Any-of: tag ids or slugs. Unknown → `CalUnknownReferenceError` on `tags`. */
  tags?: TermRef[]
  /** Any-of venue ids. */
  venue?: number[]
  /** Any-of organizer ids. */
  organizer?: number[]
  featured?: boolean
  ticketed?: boolean
  /**
   * Only these ids. When given, `window` and the four `starts_*`/`ends_*` bounds are IGNORED and
   * hidden events are listed; every other filter still applies.
   */
  include?: number[]
  /** Only children of this series parent. */
  post_parent?: number
  /** true: only events whose venue has coordinates. */
  geoloc?: boolean
  /** Only events whose venue lies within `radius_km` of the point (implies `geoloc`). */
  near?: GeoFilter
  /** List `hide_from_listings` events too (default false: they are left out). */
  include_hidden?: boolean
  /** Statuses to list; default `['publish']`. */
  status?: PostStatus[]
  /** Sticky events first, then start, then id. */
  sticky_first?: boolean
  /**
   * Feeds (iCalendar): list each matching series once, as its own record (its first start,
   * its rules, `edited_starts`) when it has an occurrence within the date bounds, instead of
   * its occurrences; edited occurrences are listed as events. The page applies to the single
   * events; the series come on top of it.
   */
  series_rows?: boolean
}
