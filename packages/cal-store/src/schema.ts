import type { Generated } from 'kysely'
import type { PostStatus } from './status.js'
import type { Taxonomy } from './term.js'

/** `cal_venue`: one row per venue. */
export interface VenueTable {
  id: Generated<number>
  author: number
  status: PostStatus
  created: Date
  modified: Date
  name: string
  slug: string
  description: string | null
  image: string | null
  show_map: boolean
  show_map_link: boolean
  address: string | null
  city: string | null
  country: string | null
  province: string | null
  state: string | null
  zip: string | null
  phone: string | null
  website: string | null
  geo_lat: number | null
  geo_lng: number | null
}

/** `cal_organizer`: one row per organizer. */
export interface OrganizerTable {
  id: Generated<number>
  author: number
  status: PostStatus
  created: Date
  modified: Date
  name: string
  slug: string
  description: string | null
  image: string | null
  phone: string | null
  website: string | null
  email: string | null
}

/** `cal_term`: categories and tags, told apart by `taxonomy`. */
export interface TermTable {
  id: Generated<number>
  taxonomy: Taxonomy
  name: string
  slug: string
  description: string | null
  parent_id: number | null
  /** Published events carrying the term; maintained by triggers (migration 0002). */
  count: Generated<number>
}

/** `cal_event`: one row per event; instants in UTC, `timezone` for rendering. */
export interface EventTable {
  id: Generated<number>
  author: number
  status: PostStatus
  created: Date
  modified: Date
  title: string
  description: string
  excerpt: string
  slug: string
  image: string | null
  all_day: boolean
  start_utc: Date
  end_utc: Date
  timezone: string
  /** JSON text of the cost as written (a string or an array of strings), or null. */
  cost: string | null
  website: string | null
  show_map: boolean
  show_map_link: boolean
  hide_from_listings: boolean
  sticky: boolean
  featured: boolean
  ticketed: boolean
  post_parent: number | null
  /** `scrypt$N$r$p$salt$hash` (base64 parts), or null. */
  password_hash: string | null
  venue_id: number | null
  /** Generated: lower(title + description + excerpt), newline-separated, for search. */
  search_text: Generated<string>
  /** The event's category and tag ids, ascending; mirrors `cal_event_term` (triggers). */
  term_ids: Generated<number[]>
}

/** `cal_event_organizer`: event ↔ organizer, ordered by `position`. */
export interface EventOrganizerTable {
  event_id: number
  organizer_id: number
  position: number
}

/** `cal_event_term`: event ↔ category/tag. */
export interface EventTermTable {
  event_id: number
  term_id: number
}

/** `cal_revision`: one row, bumped by every transaction that changes a calendar table. */
export interface RevisionTable {
  id: Generated<boolean>
  n: number
}

/** The tables of `@cal/store`, as Kysely sees them. */
export interface CalSchema {
  cal_revision: RevisionTable
  cal_venue: VenueTable
  cal_organizer: OrganizerTable
  cal_term: TermTable
  cal_event: EventTable
  cal_event_organizer: EventOrganizerTable
  cal_event_term: EventTermTable
}
