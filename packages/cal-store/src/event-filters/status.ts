import { STATUS_CODE } from '../event-list-row.js'
import type { PostStatus } from '../status.js'
import { defineFilter, NO_MATCH } from './event-filter.js'

/** Statuses to list (default `publish`); none lists nothing. */
export const status = defineFilter<PostStatus[]>({
  name: 'status',
  resolve: (filter) => {
    const statuses = filter.status ?? ['publish']
    return statuses.length ? statuses : NO_MATCH
  },
  scan(statuses, query) {
    let mask = 0
    // An unknown status gets bit 31, which no stored code has.
    for (const s of statuses) mask |= 1 << (STATUS_CODE.get(s) ?? 31)
    query.statusIn(mask)
  },
})
