import type { CalEvent, EventListFilter } from './event.js'
import { dateBoundsOf } from './event-filters/dates.js'
import type { ActiveFilter } from './event-filters/event-filter.js'
import type { EventListPlan } from './event-list-plan.js'
import { flagBit } from './event-list-row.js'
import { readEventsByRow } from './event-rows.js'
import type { IdPage } from './id-page.js'
import { occurrenceEvent, seriesRecurrence } from './occurrence-read.js'
import { isEventId, occurrenceId } from './series-ids.js'
import type { Occurrence } from './series-recurrence.js'
import type { SeriesRow } from './series-row.js'
import {
  boundedStream,
  includedStream,
  lowerBound,
  MAX_MS,
  MIN_MS,
  type Stream,
} from './series-streams.js'
import type { CalDb } from './store-context.js'

const STICKY = flagBit('sticky')

/**
 * The single events of a page (`singles`, by row) and, on top, each series in `series` with an
 * occurrence within the date bounds as its own record, carrying the original starts of its
 * edited occurrences (`EventListFilter.series_rows`, for feeds).
 */
export async function listSeriesRows(
  db: CalDb,
  filter: EventListFilter,
  series: readonly SeriesRow[],
  singles: IdPage,
): Promise<{ items: CalEvent[]; total: number }> {
  const bounds = dateBoundsOf(filter)?.bounds ?? []
  const included = filter.include?.filter(isEventId)
  const shown = series.filter((row) => {
    const rec = seriesRecurrence(row)
    const stream = included ? includedStream(row, rec, included) : boundedStream(row, rec, bounds)
    return stream.count(MIN_MS, MAX_MS) > 0
  })
  const rows = await readEventsByRow(db, [...singles.ids, ...shown.map((r) => r.id)])
  const items = singles.ids.flatMap((id) => rows.get(id) ?? [])
  for (const row of shown) {
    const event = rows.get(row.id)
    if (!event) continue
    const rec = seriesRecurrence(row)
    const edited = row.override_keys.flatMap((k) => {
      const o = rec.byKey(Number(k))
      return o ? [new Date(o.startMs)] : []
    })
    items.push({ ...event, edited_starts: edited })
  }
  return { items, total: singles.total + shown.length }
}

/** The public id of occurrence `o` of a stream's series: the series' id for its first. */
const idOf = ({ row, rec }: Stream, o: Occurrence) =>
  o.key === rec.startKey ? row.id : occurrenceId(row.series_slot as number, o.key)

/** A time (ms) and how many listed items start before it. */
export interface Probe {
  t: number
  g: number
}

/**
 * Narrows the bracket [a, b] of a monotone count G (`a.g ≤ target < b.g`, times multiples of
 * `step`) until `good(a, b)` holds or its ends are one step apart. Each probe is aimed by
 * linear interpolation at `aim`: events and series come at near-constant rates, so a guess
 * from the two ends lands close; a guess that fails to halve the bracket is followed by a
 * bisection, so the probes never exceed about twice bisection's. Every probe costs a count
 * per series, so their number is what a deep page costs.
 */
export function narrow(
  G: (t: number) => number,
  target: number,
  aim: number,
  bracket: [Probe, Probe],
  step: number,
  good: (a: Probe, b: Probe) => boolean,
): [Probe, Probe] {
  let [a, b] = bracket
  let bisect = false
  while (b.t - a.t > step && !good(a, b)) {
    const width = b.t - a.t
    const share = Number.isFinite(b.g) && !bisect ? (aim - a.g) / (b.g - a.g) : 0.5
    const guess = Math.floor((a.t + width * Math.min(1, Math.max(0, share))) / step) * step
    const t = Math.min(b.t - step, Math.max(a.t + step, guess))
    const p = { t, g: G(t) }
    if (p.g <= target) a = p
    else b = p
    bisect = !bisect && b.t - a.t > width / 2
  }
  return [a, b]
}

/** Tests set `slack` to 0 to make the search below run to single steps on small lists. */
export const seriesListTuning = { slack: 64 }

/** The filter "sticky is `value`", to split a `sticky_first` list into its two parts. */
const stickyIs = (value: boolean): ActiveFilter => ({
  name: 'sticky',
  scan: (query) => query.flag(STICKY, value),
})

/**
 * One page of single events and series occurrences merged in list order (start, then id;
 * at equal starts the rows of single and edited events first; with `sticky_first` the sticky
 * ones, a sticky series' occurrences among them, before the rest), plus the total.
 * `singles` runs a plan for single events (the list model's scan).
 */
export async function listWithSeries(
  db: CalDb,
  plan: EventListPlan,
  filter: EventListFilter,
  series: readonly SeriesRow[],
  singles: (plan: EventListPlan) => IdPage,
): Promise<{ items: CalEvent[]; total: number }> {
  const bounds = dateBoundsOf(filter)?.bounds ?? []
  const included = filter.include?.filter(isEventId)
  const streams = series.map((row) => {
    const rec = seriesRecurrence(row)
    return included ? includedStream(row, rec, included) : boundedStream(row, rec, bounds)
  })
  if (!plan.stickyFirst) {
    const { items, total } = placePage(plan, streams, singles)
    return readPage(db, items, total)
  }
  // Two lists one after the other: the sticky items, then the others, each in list order.
  const part = (sticky: boolean, offset: number, limit: number) =>
    placePage(
      {
        ...plan,
        filters: [...plan.filters, stickyIs(sticky)],
        stickyFirst: false,
        offset,
        limit,
      },
      streams.filter((s) => s.row.sticky === sticky),
      singles,
    )
  const first = part(true, plan.offset, plan.limit)
  const rest = part(false, Math.max(0, plan.offset - first.total), plan.limit - first.items.length)
  return readPage(db, [...first.items, ...rest.items], first.total + rest.total)
}

/**
 * The items of one page of a list ordered by start (see {@link listWithSeries}), and its
 * total: singles' count plus each series' count. The page is placed by searching time on
 * G(t), "how many items start before t" (the singles' prefix up to the page's end, plus each
 * series' count): a time `lo` with G(lo) a little at or below the offset and a time `hi` a
 * little at or above the page's end; the items starting in [lo, hi) are listed, sorted, and
 * the page cut from them at offset − G(lo). An infinite series is counted, never enumerated,
 * and pages never repeat or skip an item.
 */
function placePage(
  plan: EventListPlan,
  streams: readonly Stream[],
  singles: (plan: EventListPlan) => IdPage,
): { items: Item[]; total: number } {
  const { offset, limit } = plan
  const prefix = singles({ ...plan, offset: 0, limit: Math.min(offset + limit, 2 ** 31) })
  let total = prefix.total
  for (const s of streams) total += s.count(MIN_MS, MAX_MS)
  if (offset >= total || limit === 0) return { items: [], total }
  const complete = prefix.ids.length === prefix.total
  /** How many listed items start before `t` (Infinity: more than the prefix reaches). */
  const before = (t: number) => {
    const i = lowerBound(prefix.starts, t)
    if (i === prefix.ids.length && !complete) return Number.POSITIVE_INFINITY
    let n = i
    for (const s of streams) n += s.count(MIN_MS, t - 1)
    return n
  }
  // Nothing starts before the earliest floor; the search runs over whole seconds when every
  // start is one (occurrences always are).
  let floor = prefix.starts[0] ?? MAX_MS
  for (const s of streams) floor = Math.min(floor, s.floor)
  const step = prefix.starts.every((t) => t % 1000 === 0) ? 1000 : 1
  /** A time past item n: past the (n+1)-th single at the latest, or past every item. */
  const past = (n: number) => {
    const t = Math.floor((Math.min(MAX_MS, prefix.starts[n] ?? MAX_MS) + step) / step) * step
    return { t, g: before(t) }
  }
  // Up to `slack` items either side of the page are listed, for fewer probes.
  const { slack } = seriesListTuning
  const start = { t: Math.floor(Math.max(MIN_MS, floor - step) / step) * step, g: 0 }
  const [lo, upper] = narrow(
    before,
    offset,
    offset - slack / 2,
    [start, past(offset)],
    step,
    (a) => offset - a.g <= slack,
  )
  const last = offset + limit - 1
  const hi =
    last >= total - 1
      ? MAX_MS + step
      : narrow(
          before,
          last,
          last + slack / 2,
          [lo, upper.g > last ? upper : past(last)],
          step,
          (_, b) => b.g - last <= slack,
        )[1].t
  const to = hi - 1
  const items: Item[] = []
  for (let i = lowerBound(prefix.starts, lo.t); i < prefix.ids.length; i++) {
    const start = prefix.starts[i] as number
    if (start > to) break
    items.push({ start, row: prefix.ids[i] as number })
  }
  const occurrences: Item[] = []
  for (const s of streams) {
    if (s.count(lo.t, to) === 0) continue
    for (const o of s.list(lo.t, to)) {
      occurrences.push({ start: o.startMs, occurrence: [s, o, idOf(s, o)] })
    }
  }
  const skip = offset - lo.g
  return { items: mergeItems(items, occurrences).slice(skip, skip + limit), total }
}

/** A listed item: a stored row (single or edited event) or an occurrence of a series. */
interface Item {
  start: number
  row?: number
  occurrence?: [Stream, Occurrence, number]
}

/**
 * Merges rows (in their list order) with occurrences (sorted here by start, then id) into list
 * order: at equal starts the rows come first.
 */
function mergeItems(rows: readonly Item[], occurrences: Item[]): Item[] {
  const idOfItem = (x: Item) => (x.occurrence as [Stream, Occurrence, number])[2]
  occurrences.sort((x, y) => x.start - y.start || idOfItem(x) - idOfItem(y))
  const merged: Item[] = []
  let j = 0
  for (const item of rows) {
    while (j < occurrences.length && (occurrences[j] as Item).start < item.start) {
      merged.push(occurrences[j++] as Item)
    }
    merged.push(item)
  }
  merged.push(...occurrences.slice(j))
  return merged
}

/** The records of a page of items: rows read in one statement with the series they need. */
async function readPage(
  db: CalDb,
  page: readonly Item[],
  total: number,
): Promise<{ items: CalEvent[]; total: number }> {
  const rows = await readEventsByRow(db, [
    ...page.flatMap((p) => p.row ?? []),
    ...new Set(page.flatMap((p) => p.occurrence?.[0].row.id ?? [])),
  ])
  const out: CalEvent[] = []
  for (const p of page) {
    if (p.row !== undefined) {
      const event = rows.get(p.row)
      if (event) out.push(event)
      continue
    }
    const [s, o, id] = p.occurrence as [Stream, Occurrence, number]
    const seriesEvent = rows.get(s.row.id)
    if (seriesEvent) out.push(occurrenceEvent(seriesEvent, id, o))
  }
  return { items: out, total }
}
