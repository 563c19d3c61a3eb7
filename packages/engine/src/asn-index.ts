import { sortedIndexOf } from './sorted-index-of.js'

const GOLDEN = 0x9e3779b1

/**
 * Below this many values, sorting them and searching each one costs less than clearing the
 * direct table (a small graph: a test's, or a what-if's few links).
 */
export const SORTED_BELOW = 1024

/**
 * ASNs below this are numbered through a direct table (2 MiB): every 16-bit ASN and the 32-bit
 * ones allocated so far (~400,000 in 2024) — almost every endpoint of a real snapshot, at one
 * array access each. Larger ones (e.g. private 42xxxxxxxx) go through a hash table.
 */
const DIRECT = 1 << 19

/**
 * Node numbering for a list of ASNs, in place: returns the distinct ASNs, ascending, and
 * replaces every `values[i]` by its position in that list. Small ASNs are marked in a direct
 * table, walked in order (so they come out sorted); the others go into an open-addressing hash
 * table over typed arrays (linear probing, grown to stay at most half full), and only those are
 * sorted. Much faster than sorting every endpoint or binary-searching each one.
 */
export function asnIndex(values: Uint32Array): Uint32Array {
  if (values.length < SORTED_BELOW) return sortedAsnIndex(values)
  const direct = new Int32Array(DIRECT)
  let table = new AsnTable(1 << 8)
  let small = 0
  for (let i = 0; i < values.length; i++) {
    const asn = values[i]!
    if (asn < DIRECT) {
      if (direct[asn] === 0) {
        direct[asn] = 1
        small++
      }
    } else if (table.insert(asn) && table.size * 2 > table.capacity) table = table.grown()
  }
  const large = table.keys()
  large.sort()
  const asns = new Uint32Array(small + large.length)
  let n = 0
  for (let asn = 0; n < small; asn++) {
    if (direct[asn] !== 0) {
      direct[asn] = n
      asns[n++] = asn
    }
  }
  asns.set(large, small)
  const position = new Uint32Array(table.capacity)
  for (let i = 0; i < large.length; i++) position[table.slotOf(large[i]!)] = small + i
  for (let i = 0; i < values.length; i++) {
    const asn = values[i]!
    values[i] = asn < DIRECT ? direct[asn]! : position[table.slotOf(asn)]!
  }
  return asns
}

function sortedAsnIndex(values: Uint32Array): Uint32Array {
  const sorted = values.slice().sort()
  let n = 0
  for (let i = 0; i < sorted.length; i++)
    if (i === 0 || sorted[i] !== sorted[n - 1]) sorted[n++] = sorted[i]!
  const asns = sorted.slice(0, n)
  for (let i = 0; i < values.length; i++) values[i] = sortedIndexOf(asns, values[i]!)
  return asns
}

class AsnTable {
  readonly capacity: number
  size = 0
  #keys: Uint32Array
  #used: Uint8Array
  #shift: number

  constructor(capacity: number) {
    this.capacity = capacity
    this.#keys = new Uint32Array(capacity)
    this.#used = new Uint8Array(capacity)
    this.#shift = 32 - Math.log2(capacity)
  }

  /** The slot holding `asn`, or the empty slot where it belongs. */
  slotOf(asn: number): number {
    const mask = this.capacity - 1
    let slot = Math.imul(asn, GOLDEN) >>> this.#shift
    while (this.#used[slot] === 1 && this.#keys[slot] !== asn) slot = (slot + 1) & mask
    return slot
  }

  /** Adds `asn`; true when it was new. */
  insert(asn: number): boolean {
    const slot = this.slotOf(asn)
    if (this.#used[slot] === 1) return false
    this.#used[slot] = 1
    this.#keys[slot] = asn
    this.size++
    return true
  }

  grown(): AsnTable {
    const next = new AsnTable(this.capacity * 2)
    for (let slot = 0; slot < this.capacity; slot++) {
      if (this.#used[slot] === 1) next.insert(this.#keys[slot]!)
    }
    return next
  }

  keys(): Uint32Array {
    const out = new Uint32Array(this.size)
    let k = 0
    for (let slot = 0; slot < this.capacity; slot++)
      if (this.#used[slot] === 1) out[k++] = this.#keys[slot]!
    return out
  }
}
