import type { EventListFilter } from '../event.js'
import { checkListLength } from '../id-list.js'
import type { Taxonomy } from '../term.js'
import { defineFilter, type EventFilter, NO_MATCH } from './event-filter.js'

/** Term sets larger than this are tested per event instead of through slot sets. */
const SET_TERMS = 32

/**
 * Term ids as a lookup table (one byte per id up to the largest), or a set when an id is too
 * large for a table.
 */
function termLookup(ids: readonly number[]): (id: number) => boolean {
  const max = Math.max(0, ...ids)
  if (max > 1 << 22) {
    const set = new Set(ids)
    return (id) => set.has(id)
  }
  const table = new Uint8Array(max + 1)
  for (const id of ids) table[id] = 1
  return (id) => table[id] === 1
}

/**
 * Any-of a request's term refs (ids or slugs) in `taxonomy`; an unknown ref is an error on
 * `field`, and refs naming no term list nothing. `descendants`: a category also matches the
 * events filed under the categories below it.
 */
export function termFilter(
  field: 'categories' | 'tags',
  taxonomy: Taxonomy,
  descendants: boolean,
): EventFilter {
  return defineFilter<number[]>({
    name: field,
    check: (filter: EventListFilter) => checkListLength(filter[field], field),
    async resolve(filter, { terms }) {
      const refs = filter[field]
      if (refs === undefined) return undefined
      const named = await terms.resolve(taxonomy, field, refs)
      const ids = descendants ? await terms.withDescendants(named) : named
      return ids.length ? ids : NO_MATCH
    },
    scan(ids, query) {
      const c = query.columns
      if (ids.length <= SET_TERMS) {
        // A small set: the union of its terms' slot sets (a few thousand word operations).
        const any = new Uint32Array(c.setWords)
        for (const id of ids) {
          const bits = c.slotsWithTerm(id)
          for (let w = 0; w < any.length; w++) any[w] = (any[w] as number) | (bits[w] as number)
        }
        query.narrow(any)
        return
      }
      const has = termLookup(ids)
      const termStart = c.termStart.data
      const termCount = c.termCount.data
      const pool = c.termPool.data
      query.test((slot) => {
        const start = termStart[slot] as number
        const end = start + (termCount[slot] as number)
        for (let t = start; t < end; t++) if (has(pool[t] as number)) return true
        return false
      })
    },
  })
}
