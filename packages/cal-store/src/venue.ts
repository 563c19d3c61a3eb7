import type { Page } from './page.js'
import type { PostStatus } from './status.js'

/**
 * A venue as stored. Optional text fields are `null` when empty (the API renders them as `""`).
 * `stateprovince` is not stored: render it from `state ?? province`.
 */
export interface Venue {
  id: number
  author: number
  status: PostStatus
  /** Creation instant (UTC). */
  created: Date
  /** Last modification instant (UTC). */
  modified: Date
  /** The venue's name (`venue` in the API). */
  name: string
  slug: string
  description: string | null
  /** Image URL, or `null` (the API renders `false`). */
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
  /** Latitude in degrees, or `null` when the venue has no coordinates. */
  geo_lat: number | null
  /** Longitude in degrees, or `null` when the venue has no coordinates. */
  geo_lng: number | null
}

/** Fields to create a venue: `name` is required; the rest default to empty / false / `publish`. */
export interface VenueInput {
  name: string
  /** Wanted slug; derived from `name` when absent. Suffixed `-2`, `-3`, … when taken. */
  slug?: string | null
  status?: PostStatus
  author?: number
  description?: string | null
  image?: string | null
  show_map?: boolean
  show_map_link?: boolean
  address?: string | null
  city?: string | null
  country?: string | null
  province?: string | null
  state?: string | null
  zip?: string | null
  phone?: string | null
  website?: string | null
  geo_lat?: number | null
  geo_lng?: number | null
  /** Override the creation instant (seeding, imports); defaults to now. */
  created?: Date
}

/** A partial update: absent fields stay unchanged; `null` clears an optional field. */
export type VenuePatch = { [K in keyof Omit<VenueInput, 'created'>]?: VenueInput[K] | null }

/** Filters of {@link VenueRepository.list}. Order: name ascending (case-insensitive), then id. */
export interface VenueListFilter extends Page {
  /** All words, case-insensitive, each in name, description or an address field. */
  search?: string
  /** Only the venue of this event. */
  event?: number
  /** true: only venues with at least one published event; false: only venues without. */
  has_events?: boolean
  /** Only venues with a published event ending after this instant (the caller's "now"). */
  upcoming_after?: Date
  /** Statuses to list; default `['publish']`. */
  status?: PostStatus[]
  /** Only these ids. */
  include?: number[]
}
