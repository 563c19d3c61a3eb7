import { termFilter } from './term-filter.js'

/** Any-of categories, each with the categories below it. */
export const categories = termFilter('categories', 'cal_event_category', true)
