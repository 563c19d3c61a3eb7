import { flagFilter } from './flag-filter.js'

/** Ticketed events only, or only the others. */
export const ticketed = flagFilter('ticketed', (filter) => filter.ticketed)
