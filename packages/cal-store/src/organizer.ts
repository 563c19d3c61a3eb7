import type { Page } from './page.js'
import type { PostStatus } from './status.js'

/** An organizer as stored. Optional text fields are `null` when empty (rendered `""`). */
export interface Organizer {
  id: number
  author: number
  status: PostStatus
  /** Creation instant (UTC). */
  created: Date
  /** Last modification instant (UTC). */
  modified: Date
  /** The organizer's name (`organizer` in the API). */
  name: string
  slug: string
  description: string | null
  /** Image URL, or `null` (the API renders `false`). */
  image: string | null
  phone: string | null
  website: string | null
  email: string | null
}

/** Fields to create an organizer: `name` is required. */
export interface OrganizerInput {
  name: string
  /** Wanted slug; derived from `name` when absent. Suffixed `-2`, `-3`, … when taken. */
  slug?: string | null
  status?: PostStatus
  author?: number
  description?: string | null
  image?: string | null
  phone?: string | null
  website?: string | null
  email?: string | null
  /** Override the creation instant (seeding, imports); defaults to now. */
  created?: Date
}

/** A partial update: absent fields stay unchanged; `null` clears an optional field. */
export type OrganizerPatch = {
  [K in keyof Omit<OrganizerInput, 'created'>]?: OrganizerInput[K] | null
}

/** Filters of {@link OrganizerRepository.list}. Order: name ascending (case-insensitive), then id. */
export interface OrganizerListFilter extends Page {
  /** All words, case-insensitive, each in name or description. */
  search?: string
  /** Only organizers of this event. */
  event?: number
  /** true: only organizers with at least one published event; false: only those without. */
  has_events?: boolean
  /** Only organizers with a published event ending after this instant (the caller's "now"). */
  upcoming_after?: Date
  /** Statuses to list; default `['publish']`. */
  status?: PostStatus[]
  /** Only these ids. */
  include?: number[]
}
