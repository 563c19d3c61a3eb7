import { type ModifiedFilter, modifiedConditions } from '../modified-filter.js'
import { defineFilter, SQL_ONLY } from './event-filter.js'

/** Incremental sync bounds on `modified` (see `modified-filter.ts`). */
export const modified = defineFilter<ModifiedFilter>({
  name: 'modified',
  check: (filter) => {
    modifiedConditions(filter, 'modified')
  },
  resolve: ({ modified_after, modified_before }) =>
    modified_after || modified_before ? { modified_after, modified_before } : undefined,
  where: (bounds, { eb }) => eb.and(modifiedConditions(bounds, 'e.modified')),
  // The model keeps no modification times.
  memory: SQL_ONLY,
})
