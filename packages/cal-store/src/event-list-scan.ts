import { type BoundOp, holds } from './date-bound.js'
import { type EventColumns, hasBit } from './event-columns.js'
import type { ActiveFilter } from './event-filters/event-filter.js'
import type { EventListPlan } from './event-list-plan.js'
import { flagBit } from './event-list-row.js'
import type { IdPage } from './id-page.js'
import { ScanQuery, type SlotTest } from './scan-query.js'
import type { SeriesRow } from './series-row.js'

const STICKY = flagBit('sticky')
const SERIES = flagBit('series')

/**
 * The slots among `candidates[from … to)` that pass every test of `q`: the one scan rule, for
 * single events (the positions of the list order the start bounds leave) and for series rows.
 * `must` and `mustNot` add flag bits to the query's.
 */
function matchSlots(
  q: ScanQuery,
  candidates: Int32Array,
  from: number,
  to: number,
  flags: { must: number; mustNot: number },
): number[] {
  const c = q.columns
  const { ends, statusMask } = q
  const must = q.must | flags.must
  const mustNot = q.mustNot | flags.mustNot
  const { slots: mask, ids, rows, venues, postParent, tests } = q
  const flagsOf = c.flags.data
  const statusOf = c.status.data
  const endOf = c.end.data
  const publicIdOf = c.publicId.data
  const rowIdOf = c.id.data
  const venueOf = c.venue.data
  const parentOf = c.postParent.data
  const matched: number[] = []
  next: for (let p = from; p < to; p++) {
    const slot = candidates[p] as number
    if (mask && !hasBit(mask, slot)) continue
    const flags = flagsOf[slot] as number
    if ((flags & mustNot) !== 0 || (flags & must) !== must) continue
    if (((statusMask >>> (statusOf[slot] as number)) & 1) === 0) continue
    const end = endOf[slot] as number
    for (let b = 0; b < ends.length; b++) {
      const bound = ends[b] as { op: BoundOp; at: number }
      if (!holds(end, bound.op, bound.at)) continue next
    }
    if (ids && !ids.has(publicIdOf[slot] as number)) continue
    if (rows && !rows.has(rowIdOf[slot] as number)) continue
    if (venues && !venues.has(venueOf[slot] as number)) continue
    if (postParent !== undefined && parentOf[slot] !== postParent) continue
    for (let t = 0; t < tests.length; t++) if (!(tests[t] as SlotTest)(slot)) continue next
    matched.push(slot)
  }
  return matched
}

/** A scan of `columns` with the tests of `filters`. */
function queryOf(columns: EventColumns, filters: readonly ActiveFilter[]): ScanQuery {
  const q = new ScanQuery(columns)
  for (const f of filters) f.scan(q)
  return q
}

/**
 * The page and total of `plan` over `columns`: the range of positions the start bounds leave
 * is walked once, every other test inline.
 */
export function scanEvents(columns: EventColumns, plan: EventListPlan): IdPage {
  const c = columns
  const q = queryOf(c, plan.filters)
  // Series rows are listed as their occurrences (`series-list.ts`), never as rows.
  const matched = matchSlots(q, c.order, q.lo, q.hi, { must: 0, mustNot: SERIES })
  const flagsOf = c.flags.data
  const listed = plan.stickyFirst
    ? [
        ...matched.filter((s) => (flagsOf[s] as number) & STICKY),
        ...matched.filter((s) => !((flagsOf[s] as number) & STICKY)),
      ]
    : matched
  const from = Math.min(plan.offset, listed.length)
  const to = Math.min(plan.offset + plan.limit, listed.length)
  const idOf = c.id.data
  const startOf = c.startMs.data
  const ids: number[] = []
  const starts = new Float64Array(to - from)
  for (let i = from; i < to; i++) {
    const slot = listed[i] as number
    ids.push(idOf[slot] as number)
    starts[i - from] = startOf[slot] as number
  }
  return { ids, starts, total: matched.length }
}

/**
 * The series rows passing `filters` (those a series row is matched by, `seriesFilters` in
 * `series-list.ts`) by the rule single events are scanned by, and `named`, by id;
 * `series-list.ts` places their occurrences.
 */
export function scanSeries(
  columns: EventColumns,
  filters: readonly ActiveFilter[],
  named: (row: { id: number; series_slot: number | null }) => boolean,
): SeriesRow[] {
  const q = queryOf(columns, filters)
  const rows = columns.seriesSlots()
  const found: SeriesRow[] = []
  for (const slot of matchSlots(q, rows, 0, rows.length, { must: SERIES, mustNot: 0 })) {
    const row = columns.series.get(slot)
    if (row && named(row)) found.push({ ...row, override_keys: columns.overrideKeysOf(row.id) })
  }
  return found.sort((a, b) => a.id - b.id)
}
