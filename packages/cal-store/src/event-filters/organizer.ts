import { requestIds } from '../id-list.js'
import { defineFilter, NO_MATCH, SQL_ONLY } from './event-filter.js'

/** Any-of organizer ids (valid ones; none valid lists nothing). */
export const organizer = defineFilter<number[]>({
  name: 'organizer',
  resolve(filter) {
    if (filter.organizer === undefined) return undefined
    const ids = requestIds(filter.organizer, 'organizer')
    return ids.length ? ids : NO_MATCH
  },
  where: (ids, { eb }) =>
    eb.exists(
      eb
        .selectFrom('cal_event_organizer as eo')
        .select('eo.event_id')
        .whereRef('eo.event_id', '=', 'e.id')
        .where('eo.organizer_id', 'in', ids),
    ),
  // The model keeps no organizer links.
  memory: SQL_ONLY,
})
