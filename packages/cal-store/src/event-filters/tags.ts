import { termFilter } from './term-filter.js'

/** Any-of tags. */
export const tags = termFilter('tags', 'cal_event_tag', false)
