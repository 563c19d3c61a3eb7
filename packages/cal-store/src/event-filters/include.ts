import { sql } from 'kysely'
import { checkListLength } from '../id-list.js'
import { isEventId } from '../series-ids.js'
import { defineFilter, NO_MATCH } from './event-filter.js'

/**
 * Only these ids (event ids or occurrence ids; none valid lists nothing). It also sets aside
 * `dates` and `hidden`. An edited occurrence is its own row carrying its public id
 * (`occurrence_id`), so the condition asks both columns; series occurrences are picked out by
 * `series-list.ts`. An override's row id is not a public id: it matches by its occurrence id
 * only.
 */
export const include = defineFilter<number[]>({
  name: 'include',
  resolve(filter) {
    if (filter.include === undefined) return undefined
    checkListLength(filter.include, 'include')
    const ids = [...new Set(filter.include.filter(isEventId))]
    return ids.length ? ids : NO_MATCH
  },
  where: (ids) => {
    const serial = ids.filter((id) => id <= 2 ** 31 - 1)
    return sql<boolean>`((e.id = any(${serial}::integer[]) and e.occurrence_id is null)
      or e.occurrence_id = any(${ids}::bigint[]))`
  },
  memory: { scan: (ids, query) => query.idIn(ids) },
})
