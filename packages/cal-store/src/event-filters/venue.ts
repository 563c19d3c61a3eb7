import { requestIds } from '../id-list.js'
import { defineFilter, NO_MATCH } from './event-filter.js'

/** Any-of venue ids (valid ones; none valid lists nothing). */
export const venue = defineFilter<number[]>({
  name: 'venue',
  resolve(filter) {
    if (filter.venue === undefined) return undefined
    const ids = requestIds(filter.venue, 'venue')
    return ids.length ? ids : NO_MATCH
  },
  scan: (ids, query) => query.venueIn(ids),
})
