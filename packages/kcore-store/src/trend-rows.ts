import { setImmediate } from 'node:timers/promises'
import type { DateRange, TrendPoint, TrendView } from './kcore-store-types.js'
import { normalizedShell } from './normalized-shell.js'
import { indexOfAsn, type ShellArray, unionAsns } from './shell-blobs.js'
import { transposeTile } from './transpose-tile.js'

/**
 * One stored snapshot as the model holds it: its decoded blobs (ascending ASNs and their shell
 * indices), as loaded and never changed.
 */
export interface SnapshotColumn {
  date: string
  maxShell: number
  asns: Uint32Array
  shells: ShellArray
  /** The column's points by shell index, made on first use and shared (frozen) by every read. */
  points: TrendPoint[]
}

/**
 * One version's columns at a revision, in date order, transposed: a trend reads one AS across
 * every snapshot, so its bytes sit side by side (one byte per snapshot) instead of one lookup in
 * each column (460 of them per trend).
 */
export interface VersionRows {
  columns: SnapshotColumn[]
  /** Every ASN of the columns, ascending: an AS's slot is its position here. */
  union: Uint32Array
  /**
   * `rows[slot * columns.length + i]` is the shell index + 1 of the slot's AS in `columns[i]`
   * (0: absent). One byte each: {@link WIDE} sends a shell index from 254 up to `wide`.
   */
  rows: Uint8Array
  /** Shell index + 1 by `slot * columns.length + i`, for the bytes marked {@link WIDE}. */
  wide: Map<number, number>
}

/** Slots transposed per tile: the tile's values (1,024 ASes by every column) stay in cache. */
const TILE = 1024

/**
 * Cells (ASes × columns) transposed between two turns of the event loop: a few milliseconds of
 * work. A rebuild runs on the thread that answers requests, after every stored snapshot during
 * a refresh; in one piece it held every request behind it for the whole transposition (tens of
 * milliseconds, 0.1 s and more for the whole history).
 */
export const SLICE_CELLS = 1 << 19

/**
 * ...or after this long, whichever comes first: until V8 has optimized the loop (the first
 * rebuilds after a start) a slice of {@link SLICE_CELLS} took 50 ms and more.
 */
const SLICE_MS = 4

/**
 * The transposition of a version's columns over `union` (the version's known ASNs, read with
 * the listing, so every column's ASNs are in it; merged from the columns when it is missing or
 * does not hold them): tile by tile, each column's next ASNs placed in their slots by one walk,
 * letting the event loop turn after every {@link SLICE_CELLS} cells or {@link SLICE_MS} (on the
 * clock `now`). The columns never change, so what runs meanwhile cannot disturb it.
 */
export async function toRows(
  columns: SnapshotColumn[],
  known: Uint32Array | undefined,
  now: () => number = performance.now.bind(performance),
): Promise<VersionRows> {
  const n = columns.length
  let union = known ?? new Uint32Array(0)
  if (!known || !columns.every((c) => c.asns.length === 0 || holds(union, c.asns))) {
    union = new Uint32Array(0)
    for (const column of columns) union = unionAsns(union, column.asns)
  }
  const rows = new Uint8Array(union.length * n)
  const wide = new Map<number, number>()
  const next = new Uint32Array(n)
  const tile = new Uint32Array(TILE * n)
  let sinceTurn = 0
  let turnedAt = now()
  for (let from = 0; from < union.length; from += TILE) {
    if (sinceTurn >= SLICE_CELLS || now() - turnedAt >= SLICE_MS) {
      sinceTurn = 0
      await setImmediate()
      turnedAt = now()
    }
    const to = Math.min(from + TILE, union.length)
    transposeTile(columns, union, from, to, next, tile)
    // The tile's values are the rows' from `from * n` on, in the same order.
    const base = from * n
    for (let k = 0; k < (to - from) * n; k++) {
      const value = tile[k]!
      if (value === 0) continue
      if (value >= WIDE) wide.set(base + k, value)
      rows[base + k] = Math.min(value, WIDE)
    }
    sinceTurn += (to - from) * n
  }
  return { columns, union, rows, wide }
}

/** True when ascending `union` holds the ascending `asns` (first, last and size checked). */
function holds(union: Uint32Array, asns: Uint32Array): boolean {
  return (
    asns.length <= union.length &&
    indexOfAsn(union, asns[0]!) >= 0 &&
    indexOfAsn(union, asns[asns.length - 1]!) >= 0
  )
}

/** The byte of a shell index too large for one (its value is in the version's `wide`). */
const WIDE = 0xff

/**
 * The trends of `asns` (each once) in `version`'s rows within `range`, with the version's date
 * range and which of them it has. `version` undefined: no snapshot of the version is stored.
 */
export function rowsView(
  version: VersionRows | undefined,
  asns: number[],
  range?: DateRange,
): TrendView {
  const list = version?.columns ?? []
  const n = list.length
  // The columns are in date order: the range is a span of them.
  const start = range?.start
  const end = range?.end
  const from = start === undefined ? 0 : firstIndex(list, (c) => c.date >= start)
  const to = end === undefined ? n : firstIndex(list, (c) => c.date > end)
  const trends = new Map<number, TrendPoint[]>()
  const known = new Set<number>()
  for (const asn of asns) {
    if (trends.has(asn)) continue
    const points: TrendPoint[] = []
    trends.set(asn, points)
    const slot = version ? indexOfAsn(version.union, asn) : -1
    if (!version || slot < 0) continue
    // Every slot is some column's AS: the AS is known.
    known.add(asn)
    const { rows, wide } = version
    const base = slot * n
    for (let i = from; i < to; i++) {
      let value = rows[base + i]!
      if (value === 0) continue
      const column = list[i]!
      if (value === WIDE) value = wide.get(base + i) ?? WIDE
      const shell = value - 1
      points.push((column.points[shell] ??= pointOf(column, shell)))
    }
  }
  const dateRange = list.length ? { earliest: list[0]!.date, latest: list.at(-1)!.date } : null
  return { dateRange, trends, known }
}

/** The first index of `list` (sorted so `test` is false, then true) where `test` holds. */
function firstIndex<T>(list: readonly T[], test: (item: T) => boolean): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (test(list[mid]!)) hi = mid
    else lo = mid + 1
  }
  return lo
}

/**
 * The (frozen) point of `shell` in `column`: every AS with that shell index in that snapshot
 * shares it, so a read allocates no points and callers may memoize what they derive from one.
 */
function pointOf(column: SnapshotColumn, shell: number): TrendPoint {
  return Object.freeze({
    date: column.date,
    shell_index: shell,
    max_shell_index: column.maxShell,
    normalized_shell_index: normalizedShell(shell, column.maxShell),
  })
}
