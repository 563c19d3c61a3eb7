import type { ModifiedFilter } from './modified-filter.js'
import type { Page } from './page.js'
import type { PostStatus } from './status.js'

/**
 * What venues and organizers share as stored. Optional text fields are `null` when empty (the
 * API renders them as `""`).
 */
export interface NamedRecord {
  id: number
  author: number
  status: PostStatus
  /** Creation instant (UTC). */
  created: Date
  /** Last modification instant (UTC). */
  modified: Date
  name: string
  slug: string
  description: string | null
  /** Image URL, or `null` (the API renders `false`). */
  image: string | null
  phone: string | null
  website: string | null
}

/** What every create input of a venue or organizer has: `name` is required. */
export interface NamedRecordInput {
  name: string
  /** Wanted slug; derived from `name` when absent. Suffixed `-2`, `-3`, … when taken. */
  slug?: string | null
  status?: PostStatus
  author?: number
  description?: string | null
  image?: string | null
  phone?: string | null
  website?: string | null
  /** Override the creation instant (seeding, imports); defaults to now. */
  created?: Date
}

/** A partial update of input `I`: absent fields stay unchanged; `null` clears an optional field. */
export type PatchOf<I extends NamedRecordInput> = {
  [K in keyof Omit<I, 'created'>]?: I[K] | null
}

/** Filters of a venue or organizer list. Order: name ascending (case-insensitive), then id. */
export interface NamedRecordListFilter extends Page, ModifiedFilter {
  /** All words, case-insensitive, each in one of the searched fields. */
  search?: string
  /** Only the records this event names. */
  event?: number
  /** true: only records with at least one published event; false: only those without. */
  has_events?: boolean
  /** Only records with a published event ending after this instant (the caller's "now"). */
  upcoming_after?: Date
  /** Statuses to list; default `['publish']`. */
  status?: PostStatus[]
  /** Only these ids. */
  include?: number[]
}
