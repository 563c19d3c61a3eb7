import { LRUCache } from 'lru-cache'
import { instantKey } from './date-bound.js'
import { type EventListRow, FLAG_COLUMNS, type FlagColumn, STATUS_CODE } from './event-list-row.js'
import type { SeriesRow } from './series-row.js'

/** A typed column: `data` to read, `set(i, v)` to write (it grows by doubling). */
function growable<A extends Float64Array | Int32Array | Uint8Array>(make: (n: number) => A) {
  let data = make(1024)
  return {
    get data(): A {
      return data
    },
    set(i: number, value: number): void {
      if (i >= data.length) {
        const next = make(Math.max(i + 1, data.length * 2))
        next.set(data)
        data = next
      }
      data[i] = value
    },
  }
}

/** Most word and term slot sets kept (each a bit per event: 12.5 kB per 100k events). */
const SLOT_SETS = 512

type SlotTest = (slot: number) => boolean

/** Sets or clears bit `i` of `bits`. */
export function setBit(bits: Uint32Array, i: number, on: boolean): void {
  const mask = 1 << (i & 31)
  const w = i >>> 5
  bits[w] = on ? (bits[w] as number) | mask : (bits[w] as number) & ~mask
}

export const hasBit = (bits: Uint32Array, i: number) =>
  ((bits[i >>> 5] as number) & (1 << (i & 31))) !== 0

/**
 * The events' list columns in slots (struct of typed arrays), plus the live slots in list
 * order (start, then id). Written only by {@link EventColumns.apply}, which runs between scans.
 */
export class EventColumns {
  readonly id = growable((n) => new Int32Array(n))
  /** The public id: the row id, or an override's occurrence id (`series-ids.ts`). */
  readonly publicId = growable((n) => new Float64Array(n))
  readonly startMs = growable((n) => new Float64Array(n))
  readonly startUs = growable((n) => new Int32Array(n))
  /** The end as an `instantKey`. */
  readonly end = growable((n) => new Float64Array(n))
  readonly status = growable((n) => new Uint8Array(n))
  readonly flags = growable((n) => new Uint8Array(n))
  /** NaN for none. */
  readonly postParent = growable((n) => new Float64Array(n))
  /** 0 for none (ids are positive). */
  readonly venue = growable((n) => new Int32Array(n))
  /** Each slot's term ids: `termCount` of them from `termStart` in the shared `termPool`. */
  readonly termStart = growable((n) => new Int32Array(n))
  readonly termCount = growable((n) => new Int32Array(n))
  termPool = growable((n) => new Int32Array(n))
  private termPoolUsed = 0
  private termsLive = 0
  readonly text: string[] = []
  /**
   * Slot sets (a bit per slot) of recently asked words and terms, with the test that decides
   * a slot's bit; {@link EventColumns.apply} re-tests the slots it changes, so they stay exact.
   */
  private readonly slotSets = new LRUCache<string, { bits: Uint32Array; test: SlotTest }>({
    max: SLOT_SETS,
  })
  readonly slotOf = new Map<number, number>()
  private readonly free: number[] = []
  private slots = 0
  /** Live slots in list order. */
  order = new Int32Array(0)
  /** At least the longest duration in ms (kept as an upper bound on deletes). */
  maxDurationMs = 0
  /** Each series row's slot, with its row's fields but the override keys. */
  readonly series = new Map<number, Omit<SeriesRow, 'override_keys'>>()
  /** The keys of {@link series} as a scan's candidates, made on the first scan after a change. */
  private seriesSlotList: Int32Array | undefined
  /** Each override row's slot, with its series' row id and its occurrence key. */
  private readonly overrideOf = new Map<number, { parent: number; key: number }>()
  /** Override keys by series row id, each by its override row's slot. */
  private readonly overrideKeys = new Map<number, Map<number, number>>()

  get size(): number {
    return this.order.length
  }

  /** Puts `rows` in and takes out each id of `changed` that `rows` lacks (deleted). */
  apply(changed: Iterable<number>, rows: readonly EventListRow[]): void {
    const moved = new Set<number>()
    const found = new Set(rows.map((r) => r.id))
    for (const id of changed) {
      const slot = this.slotOf.get(id)
      if (slot === undefined) continue
      moved.add(slot)
      if (!found.has(id)) {
        this.slotOf.delete(id)
        this.forgetSeries(slot)
        this.termsLive -= this.termCount.data[slot] as number
        this.termCount.set(slot, 0)
        this.text[slot] = ''
        this.free.push(slot)
      }
    }
    const placed: number[] = []
    for (const row of rows) {
      let slot = this.slotOf.get(row.id)
      if (slot === undefined) {
        slot = this.free.pop() ?? this.slots++
        this.slotOf.set(row.id, slot)
      }
      moved.add(slot)
      placed.push(slot)
      this.write(slot, row)
    }
    for (const entry of this.slotSets.values()) {
      entry.bits = this.fitted(entry.bits)
      for (const slot of moved) setBit(entry.bits, slot, entry.test(slot))
    }
    if (this.termPoolUsed > 2 * this.termsLive + 4096) this.compactTerms()
    const kept = this.order.filter((slot) => !moved.has(slot))
    placed.sort((a, b) => this.compare(a, b))
    const order = new Int32Array(kept.length + placed.length)
    let i = 0
    let j = 0
    let k = 0
    while (i < kept.length && j < placed.length) {
      const a = kept[i] as number
      const b = placed[j] as number
      if (this.compare(a, b) <= 0) {
        order[k++] = a
        i++
      } else {
        order[k++] = b
        j++
      }
    }
    order.set(kept.subarray(i), k)
    order.set(placed.slice(j), k + kept.length - i)
    this.order = order
  }

  /** The slots of the series rows (see {@link series}); not to be written to. */
  seriesSlots(): Int32Array {
    this.seriesSlotList ??= Int32Array.from(this.series.keys())
    return this.seriesSlotList
  }

  /** The series row `id`'s override keys (any status, as an override row is never listed alone). */
  overrideKeysOf(id: number): number[] {
    const keys = this.overrideKeys.get(id)
    return keys ? [...keys.values()] : []
  }

  /** Drops what `slot` held as a series row or an override row. */
  private forgetSeries(slot: number): void {
    this.series.delete(slot)
    // Every write of a slot passes here first, so the list is remade after any change.
    this.seriesSlotList = undefined
    const override = this.overrideOf.get(slot)
    if (!override) return
    this.overrideOf.delete(slot)
    const keys = this.overrideKeys.get(override.parent)
    keys?.delete(slot)
    if (keys?.size === 0) this.overrideKeys.delete(override.parent)
  }

  private write(slot: number, row: EventListRow): void {
    const startMs = Number(row.start_ms)
    const endMs = Number(row.end_ms)
    this.forgetSeries(slot)
    if (row.recurrence !== null) {
      this.series.set(slot, {
        id: row.id,
        recurrence: row.recurrence,
        start_utc: new Date(startMs),
        end_utc: new Date(endMs),
        timezone: row.series_zone as string,
        all_day: row.series_all_day === true,
        sticky: row.sticky,
        series_slot: row.series_slot,
      })
    }
    if (row.occurrence_key !== null && row.post_parent !== null) {
      const key = Number(row.occurrence_key)
      this.overrideOf.set(slot, { parent: row.post_parent, key })
      let keys = this.overrideKeys.get(row.post_parent)
      if (!keys) this.overrideKeys.set(row.post_parent, (keys = new Map()))
      keys.set(slot, key)
    }
    this.id.set(slot, row.id)
    this.publicId.set(slot, row.occurrence_id === null ? row.id : Number(row.occurrence_id))
    this.startMs.set(slot, startMs)
    this.startUs.set(slot, Number(row.start_us))
    this.end.set(slot, instantKey(endMs, Number(row.end_us)))
    this.status.set(slot, STATUS_CODE.get(row.status) ?? 255)
    let flags = 0
    for (let i = 0; i < FLAG_COLUMNS.length; i++) {
      if (row[FLAG_COLUMNS[i] as FlagColumn]) flags |= 1 << i
    }
    this.flags.set(slot, flags)
    this.postParent.set(slot, row.post_parent ?? Number.NaN)
    this.venue.set(slot, row.venue_id ?? 0)
    this.termsLive += row.term_ids.length - (this.termCount.data[slot] ?? 0)
    this.termStart.set(slot, this.termPoolUsed)
    this.termCount.set(slot, row.term_ids.length)
    for (const id of row.term_ids) this.termPool.set(this.termPoolUsed++, id)
    this.text[slot] = row.search_text
    const duration = endMs - startMs + 1
    if (duration > this.maxDurationMs) this.maxDurationMs = duration
  }

  /** Rewrites the term pool without the lists of replaced and deleted events. */
  private compactTerms(): void {
    const pool = growable((n) => new Int32Array(n))
    let used = 0
    for (const slot of this.slotOf.values()) {
      const start = this.termStart.data[slot] as number
      const count = this.termCount.data[slot] as number
      this.termStart.set(slot, used)
      for (let i = 0; i < count; i++) pool.set(used++, this.termPool.data[start + i] as number)
    }
    this.termPool = pool
    this.termPoolUsed = used
  }

  /** `bits` with room for every slot (a copy when it had to grow). */
  private fitted(bits: Uint32Array): Uint32Array {
    const words = (this.slots >>> 5) + 1
    if (bits.length >= words) return bits
    const wide = new Uint32Array(words * 2)
    wide.set(bits)
    return wide
  }

  /** Words of a bit set covering every slot. */
  get setWords(): number {
    return (this.slots >>> 5) + 1
  }

  private slotSet(key: string, test: SlotTest): Uint32Array {
    let entry = this.slotSets.get(key)
    if (!entry) {
      entry = { bits: new Uint32Array(this.setWords), test }
      for (const slot of this.slotOf.values()) if (test(slot)) setBit(entry.bits, slot, true)
      this.slotSets.set(key, entry)
    }
    return entry.bits
  }

  /** The slots whose search text contains `word`. */
  slotsContaining(word: string): Uint32Array {
    return this.slotSet(`w:${word}`, (slot) => (this.text[slot] as string).includes(word))
  }

  /** The slots of events carrying term `id`. */
  slotsWithTerm(id: number): Uint32Array {
    return this.slotSet(`t:${id}`, (slot) => {
      const start = this.termStart.data[slot] as number
      const end = start + (this.termCount.data[slot] as number)
      for (let t = start; t < end; t++) if (this.termPool.data[t] === id) return true
      return false
    })
  }

  /** List order: start (ms, then µs), then id. */
  private compare(a: number, b: number): number {
    const ms = this.startMs.data
    const us = this.startUs.data
    const id = this.id.data
    return (
      (ms[a] as number) - (ms[b] as number) ||
      (us[a] as number) - (us[b] as number) ||
      (id[a] as number) - (id[b] as number)
    )
  }

  /** The first position in list order whose slot passes `test`, which holds from there on. */
  firstPosition(test: (slot: number) => boolean): number {
    let lo = 0
    let hi = this.order.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (test(this.order[mid] as number)) hi = mid
      else lo = mid + 1
    }
    return lo
  }
}
