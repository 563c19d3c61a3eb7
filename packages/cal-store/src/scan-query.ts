import type { EventColumns } from './event-columns.js'

/** A test of one slot, for a filter no column test below fits. */
export type SlotTest = (slot: number) => boolean

/** A date bound's operator, as SQL writes it. */
export type BoundOp = '<' | '<=' | '>' | '>='

/**
 * What one scan tests, filled once per list by the filters' memory forms (`event-filters/`).
 * Each method is a kind of column test the scan loop runs inline, so the loop's shape stays the
 * same whatever the filters: start bounds narrow a range of the list order (binary search),
 * end bounds one interval, flags two bit masks, statuses one mask, words and terms a slot set.
 * A filter none of these fits adds a {@link ScanQuery.test}.
 */
export class ScanQuery {
  /** Positions `lo` … `hi - 1` of the list order are scanned. */
  lo = 0
  hi: number
  endMin = Number.NEGATIVE_INFINITY
  endMinOpen = false
  endMax = Number.POSITIVE_INFINITY
  endMaxOpen = false
  must = 0
  mustNot = 0
  /** Bit `code` set: status `code` is listed (all by default). */
  statusMask = -1
  /** Only slots whose bit is set. */
  slots: Uint32Array | undefined
  ids: Set<number> | undefined
  venues: Set<number> | undefined
  postParent: number | undefined
  readonly tests: SlotTest[] = []

  constructor(readonly columns: EventColumns) {
    this.hi = columns.size
  }

  /** Only events whose start is `op` `ms`. */
  start(op: BoundOp, ms: number): void {
    const c = this.columns
    if (op === '>=') this.lo = Math.max(this.lo, c.firstStartingAt(ms, 0))
    else if (op === '>') this.lo = Math.max(this.lo, c.firstStartingAt(ms, 1))
    else if (op === '<=') this.hi = Math.min(this.hi, c.firstStartingAt(ms, 1))
    else this.hi = Math.min(this.hi, c.firstStartingAt(ms, 0))
  }

  /** Only events whose end is `op` `ms`. */
  end(op: BoundOp, ms: number): void {
    if (op === '>=' || op === '>') {
      if (ms > this.endMin || (ms === this.endMin && op === '>')) {
        this.endMin = ms
        this.endMinOpen = op === '>'
      }
    } else if (ms < this.endMax || (ms === this.endMax && op === '<')) {
      this.endMax = ms
      this.endMaxOpen = op === '<'
    }
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
