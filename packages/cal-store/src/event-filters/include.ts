import { sql } from 'kysely'
import { checkListLength } from '../id-list.js'
import { isEventId } from '../series-ids.js'
import { defineFilter, NO_MATCH, SQL_ONLY } from './event-filter.js'

/**
 * Only these ids (event ids or occurrence ids; none valid lists nothing). It also sets aside
 * `dates` and `hidden`. An edited occurrence is its own row carrying its public id
 * (`occurrence_id`), so the condition asks both columns; series occurrences are picked out by
 * `series-list.ts`. SQL only: the list model keys slots by row id.
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
    return sql<boolean>`(e.id = any(${serial}::integer[]) or e.occurrence_id = any(${ids}::bigint[]))`
  },
  memory: SQL_ONLY,
})
