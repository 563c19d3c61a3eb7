import { requestIds } from '../id-list.js'
import { defineFilter, NO_MATCH } from './event-filter.js'

/** Only these ids (valid ones; none valid lists nothing). It also sets aside `dates` and `hidden`. */
export const include = defineFilter<number[]>({
  name: 'include',
  resolve(filter) {
    if (filter.include === undefined) return undefined
    const ids = requestIds(filter.include, 'include')
    return ids.length ? ids : NO_MATCH
  },
  where: (ids, { eb }) => eb('e.id', 'in', ids),
  memory: { scan: (ids, query) => query.idIn(ids) },
})
