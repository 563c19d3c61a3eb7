import { type DateBound, holds } from './date-bound.js'
import type { CalEvent, EventListFilter } from './event.js'
import { flagBit } from './event-columns.js'
import { dateBoundsOf } from './event-filters/dates.js'
import type { ActiveFilter } from './event-filters/event-filter.js'
import type { EventListPlan } from './event-list-plan.js'
import { readEventsByRow } from './event-rows.js'
import { validIds } from './id-list.js'
import type { IdPage } from './id-page.js'
import { occurrenceEvent, seriesRecurrence } from './occurrence-read.js'
import { decodeOccurrenceId, isEventId, occurrenceId } from './series-ids.js'
import type { Occurrence, Recurrence } from './series-recurrence.js'
import type { SeriesRow } from './series-row.js'
import type { CalDb } from './store-context.js'

const STICKY = flagBit('sticky')

/** Before and after every instant a list can hold (years 999 and 10000, in ms). */
const MIN_MS = Date.UTC(999, 0, 1)
const MAX_MS = Date.UTC(10000, 1, 1)

/**
 * An all-day occurrence ends at 23:59:59 of its last day on the wall clock: in UTC its length
 * varies with the zone's offset changes (an hour for DST, a day for Samoa's 2011). Its end
 * bounds are decided exactly for the occurrences within this much of them.
 */
const ALL_DAY_SLACK_MS = 48 * 3600_000

/** Filters placing occurrences by their own start, end and id, not by the series row. */
const OCCURRENCE_FILTERS = new Set(['dates', 'include', 'post_parent'])

/** The filters of `plan` a series row is matched by: all but the ones placing occurrences. */
export const seriesFilters = (plan: EventListPlan): ActiveFilter[] =>
  plan.filters.filter((f) => !OCCURRENCE_FILTERS.has(f.name))

/**
 * What `include` and `post_parent` ask of a series row: its id or slot among `include`'s
 * (each part `undefined` when not given), its id `post_parent`.
 */
function seriesNames(filter: EventListFilter) {
  const ids = filter.include?.filter(isEventId)
  return {
    include: ids && {
      serial: validIds(ids),
      slots: ids.flatMap((id) => decodeOccurrenceId(id)?.slot ?? []),
    },
    parent: filter.post_parent,
  }
}

/** Whether `filter`'s `include` and `post_parent` leave the series `row` (see `seriesNames`). */
export function seriesNamedBy(
  filter: EventListFilter,
): (row: { id: number; series_slot: number | null }) => boolean {
  const { include, parent } = seriesNames(filter)
  if (!include && parent === undefined) return () => true
  const serial = new Set(include?.serial)
  const slots = new Set(include?.slots)
  return (row) =>
    (!include || serial.has(row.id) || (row.series_slot !== null && slots.has(row.series_slot))) &&
    (parent === undefined || row.id === parent)
}

/** The occurrences of one series a list shows, by start. */
interface Stream {
  row: SeriesRow
  rec: Recurrence
  /** No occurrence it lists starts before this (ms). */
  floor: number
  /** How many have their start in [a, b] (ms). */
  count(a: number, b: number): number
  /** Those with their start in [a, b], by start then key. */
  list(a: number, b: number): Occurrence[]
}

const byStart = (x: Occurrence, y: Occurrence) => x.startMs - y.startMs || x.key - y.key

/** How many of the ascending `values` lie in [a, b]. */
function countIn(values: readonly number[], a: number, b: number): number {
  return a > b ? 0 : lowerBound(values, b + 1) - lowerBound(values, a)
}

/** The first index of the ascending `values` whose value is ≥ `x`. */
function lowerBound(values: ArrayLike<number>, x: number): number {
  let lo = 0
  let hi = values.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((values[mid] as number) < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Whether `o` meets every date bound (the `dates` filter's rule, on one occurrence). */
const meets = (o: Occurrence, bounds: readonly DateBound[]) =>
  bounds.every(({ column, op, at }) =>
    holds(column === 'start' ? o.startMs : o.endMs, op, at.getTime()),
  )

/**
 * The occurrences of a series within date bounds, counted by the core (never enumerated): every
 * bound becomes a range of starts, since an occurrence ends its duration after it starts. The
 * few all-day occurrences near an end bound, whose length in UTC varies, are listed and
 * tested one by one. Edited occurrences are left out (their rows are listed as events).
 */
function boundedStream(row: SeriesRow, rec: Recurrence, bounds: readonly DateBound[]): Stream {
  const duration = row.end_utc.getTime() - row.start_utc.getTime()
  const slack = row.all_day ? ALL_DAY_SLACK_MS : 0
  const [dMin, dMax] = [duration - slack, duration + slack]
  // Possible starts [pLo, pHi]; starts certain to meet the end bounds [cLo, cHi].
  let [pLo, pHi, cLo, cHi] = [MIN_MS, MAX_MS, MIN_MS, MAX_MS]
  for (const { column, op, at } of bounds) {
    // Instants are whole milliseconds: an open bound is the closed one a millisecond in.
    const t = at.getTime() + (op === '>' ? 1 : op === '<' ? -1 : 0)
    const lower = op === '>' || op === '>='
    if (column === 'start') {
      if (lower) [pLo, cLo] = [Math.max(pLo, t), Math.max(cLo, t)]
      else [pHi, cHi] = [Math.min(pHi, t), Math.min(cHi, t)]
    } else if (lower) [pLo, cLo] = [Math.max(pLo, t - dMax), Math.max(cLo, t - dMin)]
    else [pHi, cHi] = [Math.min(pHi, t - dMin), Math.min(cHi, t - dMax)]
  }
  cLo = Math.max(cLo, pLo)
  cHi = Math.min(cHi, pHi)
  const overridden = new Set(row.override_keys.map(Number))
  const overriddenStarts = [...overridden]
    .flatMap((k) => rec.byKey(k)?.startMs ?? [])
    .sort((a, b) => a - b)
  const keep = (o: Occurrence) => !overridden.has(o.key) && meets(o, bounds)
  const edges =
    slack === 0
      ? []
      : cLo > cHi
        ? rec.between(pLo, pHi).filter(keep)
        : [...rec.between(pLo, cLo - 1), ...rec.between(cHi + 1, pHi)].filter(keep)
  const edgeStarts = edges.map((o) => o.startMs)
  let below: number | undefined
  return {
    row,
    rec,
    floor: pLo,
    count(a, b) {
      const [lo, hi] = [Math.max(a, cLo), Math.min(b, cHi)]
      if (lo > hi) return countIn(edgeStarts, a, b)
      // The search asks for counts from the first possible start: one bound is fixed.
      let n: number
      if (lo === cLo) {
        below ??= rec.count(MIN_MS, cLo - 1)
        n = rec.count(MIN_MS, hi) - below
      } else n = rec.count(lo, hi)
      return n - countIn(overriddenStarts, lo, hi) + countIn(edgeStarts, a, b)
    },
    list(a, b) {
      const [lo, hi] = [Math.max(a, cLo), Math.min(b, cHi)]
      const certain =
        lo <= hi
          ? rec.between(lo, hi, 10_000 + overridden.size).filter((o) => !overridden.has(o.key))
          : []
      const near = edges.filter((o) => o.startMs >= a && o.startMs <= b)
      return [...certain, ...near].sort(byStart)
    },
  }
}

/** The occurrences of a series an `include` list names (dates set aside, as for events). */
function includedStream(row: SeriesRow, rec: Recurrence, ids: readonly number[]): Stream {
  const first = rec.startKey
  const overridden = new Set(row.override_keys.map(Number))
  const keys = new Set<number>()
  for (const id of ids) {
    if (id === row.id) keys.add(first)
    const d = decodeOccurrenceId(id)
    if (d && d.slot === row.series_slot && d.key !== first) keys.add(d.key)
  }
  const listed = [...keys]
    .filter((k) => !overridden.has(k))
    .flatMap((k) => rec.byKey(k) ?? [])
    .sort(byStart)
  const starts = listed.map((o) => o.startMs)
  return {
    row,
    rec,
    floor: starts[0] ?? MAX_MS,
    count: (a, b) => countIn(starts, a, b),
    list: (a, b) => listed.filter((o) => o.startMs >= a && o.startMs <= b),
  }
}

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
