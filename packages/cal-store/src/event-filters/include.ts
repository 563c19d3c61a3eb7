import { checkListLength } from '../id-list.js'
import { isEventId } from '../series-ids.js'
import { defineFilter, NO_MATCH } from './event-filter.js'

/**
 * Only these ids (event ids or occurrence ids; none valid lists nothing). It also sets aside
 * `dates` and `hidden`. An edited occurrence is its own row, matched by its public id
 * (`occurrence_id`), never by its row id; series occurrences are picked out by `series-list.ts`.
 */
export const include = defineFilter<number[]>({
  name: 'include',
  resolve(filter) {
    if (filter.include === undefined) return undefined
    checkListLength(filter.include, 'include')
    const ids = [...new Set(filter.include.filter(isEventId))]
    return ids.length ? ids : NO_MATCH
  },
  scan: (ids, query) => query.idIn(ids),
})
