import { type DateBound, holds } from './date-bound.js'
import { decodeOccurrenceId } from './series-ids.js'
import type { Occurrence, Recurrence } from './series-recurrence.js'
import type { SeriesRow } from './series-row.js'

/** Before and after every instant a list can hold (years 999 and 10000, in ms). */
export const MIN_MS = Date.UTC(999, 0, 1)
export const MAX_MS = Date.UTC(10000, 1, 1)

/**
 * An all-day occurrence ends at 23:59:59 of its last day on the wall clock: in UTC its length
 * varies with the zone's offset changes (an hour for DST, a day for Samoa's 2011). Its end
 * bounds are decided exactly for the occurrences within this much of them.
 */
const ALL_DAY_SLACK_MS = 48 * 3600_000

/** The occurrences of one series a list shows, by start. */
export interface Stream {
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
export function lowerBound(values: ArrayLike<number>, x: number): number {
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
export function boundedStream(
  row: SeriesRow,
  rec: Recurrence,
  bounds: readonly DateBound[],
): Stream {
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
export function includedStream(row: SeriesRow, rec: Recurrence, ids: readonly number[]): Stream {
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
