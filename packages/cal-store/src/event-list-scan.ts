import {
  type EventColumns,
  FEATURED,
  HIDDEN,
  hasBit,
  PROTECTED,
  STATUS_CODE,
  STICKY,
  TICKETED,
} from './event-columns.js'
import type { IdPage } from './event-list.js'
import type { EventListPlan } from './event-list-plan.js'

/** Term sets larger than this are tested per event instead of through slot sets. */
const SET_TERMS = 32

/**
 * Term ids as a lookup table (one byte per id up to the largest), or a set when an id is too
 * large for a table.
 */
function termLookup(ids: readonly number[]): (id: number) => boolean {
  const max = Math.max(0, ...ids)
  if (max > 1 << 22) {
    const set = new Set(ids)
    return (id) => set.has(id)
  }
  const table = new Uint8Array(max + 1)
  for (const id of ids) table[id] = 1
  return (id) => table[id] === 1
}
/**
 * The page and total of `plan` over `columns`, `words` already lowered as the database lowers
 * them. The start bounds narrow a range of the list order (binary search), the longest
 * duration bounds "ends after" from below; words and small term sets become one mask of
 * slots; flags, statuses and the end interval are tested per event.
 */
export function scanEvents(
  columns: EventColumns,
  plan: EventListPlan,
  words: readonly string[],
): IdPage {
  const c = columns
  let lo = 0
  let hi = c.size
  // Start bounds narrow the range of positions; end bounds become one interval of end keys.
  let endMin = Number.NEGATIVE_INFINITY
  let endMinOpen = false
  let endMax = Number.POSITIVE_INFINITY
  let endMaxOpen = false
  for (const { column, op, at } of plan.dates) {
    const ms = at.getTime()
    if (column === 'start') {
      if (op === '>=') lo = Math.max(lo, c.firstStartingAt(ms, 0))
      else if (op === '>') lo = Math.max(lo, c.firstStartingAt(ms, 1))
      else if (op === '<=') hi = Math.min(hi, c.firstStartingAt(ms, 1))
      else hi = Math.min(hi, c.firstStartingAt(ms, 0))
    } else if (op === '>=' || op === '>') {
      if (ms > endMin || (ms === endMin && op === '>')) {
        endMin = ms
        endMinOpen = op === '>'
      }
    } else if (ms < endMax || (ms === endMax && op === '<')) {
      endMax = ms
      endMaxOpen = op === '<'
    }
  }
  if (plan.endsFrom) {
    lo = Math.max(lo, c.firstStartingAt(plan.endsFrom.getTime() - c.maxDurationMs - 1, 0))
  }
  const include = plan.include && new Set(plan.include)
  const venues = plan.venues && new Set(plan.venues)
  // Words and small term sets become one mask of slots (a few thousand word operations);
  // large term sets are looked up per candidate.
  let mask: Uint32Array | undefined
  const narrow = (bits: Uint32Array) => {
    if (!mask) mask = bits.slice(0, c.setWords)
    else for (let w = 0; w < mask.length; w++) mask[w] = (mask[w] as number) & (bits[w] as number)
  }
  for (const word of words) narrow(c.slotsContaining(word))
  const termSets: ((id: number) => boolean)[] = []
  for (const ids of plan.termSets) {
    if (ids.length > SET_TERMS) {
      termSets.push(termLookup(ids))
      continue
    }
    const any = new Uint32Array(c.setWords)
    for (const id of ids) {
      const bits = c.slotsWithTerm(id)
      for (let w = 0; w < any.length; w++) any[w] = (any[w] as number) | (bits[w] as number)
    }
    narrow(any)
  }
  let statusMask = 0
  for (const s of plan.statuses) statusMask |= 1 << (STATUS_CODE.get(s) ?? 31)
  let mustNot = 0
  let must = 0
  if (plan.excludeHidden) mustNot |= HIDDEN
  if (plan.publicOnly) mustNot |= PROTECTED
  if (plan.featured !== undefined) plan.featured ? (must |= FEATURED) : (mustNot |= FEATURED)
  if (plan.ticketed !== undefined) plan.ticketed ? (must |= TICKETED) : (mustNot |= TICKETED)
  const postParent = plan.postParent
  const order = c.order
  const flagsOf = c.flags.data
  const statusOf = c.status.data
  const endOf = c.end.data
  const idOf = c.id.data
  const venueOf = c.venue.data
  const parentOf = c.postParent.data
  const termStart = c.termStart.data
  const termCount = c.termCount.data
  const pool = c.termPool.data
  const matched: number[] = []
  next: for (let p = lo; p < hi; p++) {
    const slot = order[p] as number
    if (mask && !hasBit(mask, slot)) continue
    const flags = flagsOf[slot] as number
    if ((flags & mustNot) !== 0 || (flags & must) !== must) continue
    if (((statusMask >>> (statusOf[slot] as number)) & 1) === 0) continue
    const end = endOf[slot] as number
    if (end < endMin || (endMinOpen && end === endMin)) continue
    if (end > endMax || (endMaxOpen && end === endMax)) continue
    if (include && !include.has(idOf[slot] as number)) continue
    if (venues && !venues.has(venueOf[slot] as number)) continue
    if (postParent !== undefined && parentOf[slot] !== postParent) continue
    if (termSets.length > 0) {
      const start = termStart[slot] as number
      const end = start + (termCount[slot] as number)
      for (const has of termSets) {
        let any = false
        for (let t = start; t < end && !any; t++) any = has(pool[t] as number)
        if (!any) continue next
      }
    }
    matched.push(slot)
  }
  const listed = plan.stickyFirst
    ? [
        ...matched.filter((s) => (flagsOf[s] as number) & STICKY),
        ...matched.filter((s) => !((flagsOf[s] as number) & STICKY)),
      ]
    : matched
  return {
    ids: listed.slice(plan.offset, plan.offset + plan.limit).map((s) => idOf[s] as number),
    total: matched.length,
  }
}
