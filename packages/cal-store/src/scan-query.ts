import { type BoundOp, holds, instantKey, isLowerBound } from './date-bound.js'
import type { EventColumns } from './event-columns.js'

/** A test of one slot, for a filter no column test below fits. */
export type SlotTest = (slot: number) => boolean

/**
 * What one scan tests, filled once per list by the filters' memory forms (`event-filters/`).
 * Each method is a kind of column test the scan loop runs inline, so the loop's shape stays the
 * same whatever the filters: start bounds narrow a range of the list order (binary search),
 * end bounds are tested per event, flags two bit masks, statuses one mask, words and terms a slot set.
 * A filter none of these fits adds a {@link ScanQuery.test}.
 */
export class ScanQuery {
  /** Positions `lo` … `hi - 1` of the list order are scanned. */
  lo = 0
  hi: number
  /** Bounds on the end, each tested by {@link holds}. */
  readonly ends: { op: BoundOp; at: number }[] = []
  must = 0
  mustNot = 0
  /** Bit `code` set: status `code` is listed (all by default). */
  statusMask = -1
  /** Only slots whose bit is set. */
  slots: Uint32Array | undefined
  ids: Set<number> | undefined
  /** Only these row ids. */
  rows: Set<number> | undefined
  venues: Set<number> | undefined
  postParent: number | undefined
  readonly tests: SlotTest[] = []

  constructor(readonly columns: EventColumns) {
    this.hi = columns.size
  }

  /**
   * Only events whose start is `op` `ms`: the list order is by start, so the positions that
   * hold are one end of it, found by binary search on {@link holds}.
   */
  start(op: BoundOp, ms: number): void {
    const c = this.columns
    const startMs = c.startMs.data
    const startUs = c.startUs.data
    const meets = (slot: number) =>
      holds(instantKey(startMs[slot] as number, startUs[slot] as number), op, ms)
    if (isLowerBound(op))
      this.lo = Math.max(
        this.lo,
        c.firstPosition((slot) => meets(slot)),
      )
    else
      this.hi = Math.min(
        this.hi,
        c.firstPosition((slot) => !meets(slot)),
      )
  }

  /** Only events whose end is `op` `ms`. */
  end(op: BoundOp, ms: number): void {
    this.ends.push({ op, at: ms })
  }

  /** Only events whose flag `bit` is `on`. */
  flag(bit: number, on: boolean): void {
    if (on) this.must |= bit
    else this.mustNot |= bit
  }

  /** Only events whose status code has its bit set in `mask`. */
  statusIn(mask: number): void {
    this.statusMask &= mask
  }

  /** Only the slots set in `bits` (a slot set of `EventColumns`; not written to). */
  narrow(bits: Uint32Array): void {
    const c = this.columns
    if (!this.slots) {
      this.slots = bits.slice(0, c.setWords)
      return
    }
    const mask = this.slots
    for (let w = 0; w < mask.length; w++) mask[w] = (mask[w] as number) & (bits[w] as number)
  }

  /** Only events with one of these (public) ids. */
  idIn(ids: readonly number[]): void {
    this.ids = within(this.ids, ids)
  }

  /** Only events whose row id is in `ids`. */
  rowIn(ids: ReadonlySet<number>): void {
    this.rows = this.rows ? new Set([...ids].filter((id) => this.rows?.has(id))) : new Set(ids)
  }

  /** Only events at one of these venues. */
  venueIn(ids: readonly number[]): void {
    this.venues = within(this.venues, ids)
  }

  /** Only children of `id`. */
  postParentIs(id: number): void {
    this.postParent = this.postParent === undefined || this.postParent === id ? id : Number.NaN
  }

  /** Only slots `test` passes. */
  test(test: SlotTest): void {
    this.tests.push(test)
  }
}

/** `ids` as a set, intersected with `set` if there is one. */
const within = (set: Set<number> | undefined, ids: readonly number[]) =>
  new Set(set ? ids.filter((id) => set.has(id)) : ids)
