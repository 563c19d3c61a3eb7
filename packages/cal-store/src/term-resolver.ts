import type { TermRef } from './event.js'
import type { Taxonomy } from './term.js'

/** How a list plan turns term filters into ids: from the database or from a loaded model. */
export interface TermResolver {
  /** Ids of `refs` (numbers ids, strings slugs) in `taxonomy`; unknown → `CalUnknownReferenceError` on `field`. */
  resolve(taxonomy: Taxonomy, field: string, refs: readonly TermRef[]): Promise<number[]>
  /** `ids` and every category below them. */
  withDescendants(ids: number[]): Promise<number[]>
}
