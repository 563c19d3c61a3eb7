import { flagFilter } from './flag-filter.js'

/** `hide_from_listings` events are left out unless `include_hidden` or an `include` list. */
export const hidden = flagFilter('hide_from_listings', (filter) =>
  filter.include === undefined && !filter.include_hidden ? false : undefined,
)
