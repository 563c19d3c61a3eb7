import { validIds } from '../id-list.js'
import { defineFilter, NO_MATCH } from './event-filter.js'

/** Only children of this series parent (an invalid id lists nothing). */
export const postParent = defineFilter<number>({
  name: 'post_parent',
  resolve(filter) {
    const parent = filter.post_parent
    if (parent === undefined) return undefined
    return validIds([parent]).length ? parent : NO_MATCH
  },
  scan: (parent, query) => query.postParentIs(parent),
})
