import { flagFilter } from './flag-filter.js'

/** `featured` events only, or only the others. */
export const featured = flagFilter('featured', (filter) => filter.featured)
