import type {
  NamedRecord,
  NamedRecordInput,
  NamedRecordListFilter,
  PatchOf,
} from './named-record.js'

/**
 * A venue as stored; `name` is `venue` in the API. `stateprovince` is not stored: render it
 * from `state ?? province`.
 */
export interface Venue extends NamedRecord {
  show_map: boolean
  show_map_link: boolean
  address: string | null
  city: string | null
  country: string | null
  province: string | null
  state: string | null
  zip: string | null
  /** Latitude in degrees, or `null` when the venue has no coordinates. */
  geo_lat: number | null
  /** Longitude in degrees, or `null` when the venue has no coordinates. */
  geo_lng: number | null
}

/** Fields to create a venue: `name` is required; the rest default to empty / false / `publish`. */
export interface VenueInput extends NamedRecordInput {
  show_map?: boolean
  show_map_link?: boolean
  address?: string | null
  city?: string | null
  country?: string | null
  province?: string | null
  state?: string | null
  zip?: string | null
  geo_lat?: number | null
  geo_lng?: number | null
}

/** A partial update: absent fields stay unchanged; `null` clears an optional field. */
export type VenuePatch = PatchOf<VenueInput>

/** Filters of {@link VenueRepository.list}. Order: name ascending (case-insensitive), then id. */
export interface VenueListFilter extends NamedRecordListFilter {
  /** All words, case-insensitive, each in name, description or an address field. */
  search?: string
  /** Only the venue of this event. */
  event?: number
}
