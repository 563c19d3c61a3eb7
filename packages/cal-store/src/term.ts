import type { Page } from './page.js'

/** The two taxonomies, named as the API renders them. */
export type Taxonomy = 'cal_event_category' | 'cal_event_tag'

/** A category or tag. */
export interface Term {
  id: number
  taxonomy: Taxonomy
  name: string
  slug: string
  /** `null` when empty (the API renders `""`). */
  description: string | null
  /** Parent term id; `0` for roots and for every tag (as WordPress renders it). */
  parent: number
  /** Number of PUBLISHED events carrying the term. */
  count: number
}

/** Fields to create a term: `name` is required. */
export interface TermInput {
  name: string
  /** Wanted slug; derived from `name` when absent. Suffixed `-2`, … when taken in the taxonomy. */
  slug?: string | null
  description?: string | null
  /** Parent id (categories only; `0`/`null` = root). Must be a category of the same taxonomy. */
  parent?: number | null
}

/** A partial update: absent fields stay unchanged; `null` clears (`parent: null` = root). */
export type TermPatch = { [K in keyof TermInput]?: TermInput[K] | null }

/** Sort keys of {@link TermRepository.list}. `include` = the order of `filter.include`. */
export type TermOrderBy = 'id' | 'name' | 'slug' | 'count' | 'include'

/** Filters of {@link TermRepository.list}. */
export interface TermListFilter extends Page {
  /** Case-insensitive substring of name or slug. */
  search?: string
  /** Leave these ids out. */
  exclude?: number[]
  /** Only these ids. */
  include?: number[]
  /** Default `asc`. Ties always break on id ascending. */
  order?: 'asc' | 'desc'
  /** Default `name`. `include` without `filter.include` falls back to `id`. */
  orderby?: TermOrderBy
  /** Default TRUE (as the API): hide terms with no published event. */
  hide_empty?: boolean
  /** Only children of this term (`0` = only roots). */
  parent?: number
  /** Only the terms of this event. */
  event?: number
  /** Only terms with one of these slugs. */
  slug?: string | string[]
}
