import { idIn, requestIds } from '../id-list.js'
import { defineFilter, NO_MATCH } from './event-filter.js'

/**
 * Any-of organizer ids (valid ones; none valid lists nothing). The list model keeps no
 * organizer links: the events linked to them are read in the list's snapshot, by the
 * `(organizer_id, event_id)` index.
 */
export const organizer = defineFilter<Set<number>>({
  name: 'organizer',
  async resolve(filter, { db }) {
    if (filter.organizer === undefined) return undefined
    const ids = requestIds(filter.organizer, 'organizer')
    if (ids.length === 0) return NO_MATCH
    const rows = await db
      .selectFrom('cal_event_organizer')
      .select('event_id')
      .where(idIn('organizer_id', ids))
      .execute()
    return rows.length ? new Set(rows.map((r) => r.event_id)) : NO_MATCH
  },
  scan: (events, query) => query.rowIn(events),
})
