import { modifiedConditions } from '../modified-filter.js'
import { defineFilter, NO_MATCH } from './event-filter.js'

/**
 * Incremental sync bounds on `modified` (see `modified-filter.ts`), compared with the stored
 * microseconds in the list's snapshot (the list model keeps no modification times).
 */
export const modified = defineFilter<Set<number>>({
  name: 'modified',
  check: (filter) => {
    modifiedConditions(filter, 'modified')
  },
  async resolve({ modified_after, modified_before }, { db }) {
    if (!modified_after && !modified_before) return undefined
    const conditions = modifiedConditions({ modified_after, modified_before }, 'modified')
    const rows = await db
      .selectFrom('cal_event')
      .select('id')
      .where((eb) => eb.and(conditions))
      .execute()
    return rows.length ? new Set(rows.map((r) => r.id)) : NO_MATCH
  },
  scan: (events, query) => query.rowIn(events),
})
