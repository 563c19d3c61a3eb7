const GOLDEN = 0x9e3779b1

/**
 * Node numbering for a list of ASNs, in place: returns the distinct ASNs, ascending, and
 * replaces every `values[i]` by its position in that list. An open-addressing hash table over typed arrays
 * (linear probing, grown to stay at most half full) finds the distinct ASNs; only those are
 * sorted. Much faster than sorting every endpoint or binary-searching each one.
 */
export function asnIndex(values: Uint32Array): Uint32Array {
  let table = new AsnTable(1 << 12)
  for (let i = 0; i < values.length; i++) {
    if (table.insert(values[i]!) && table.size * 2 > table.capacity) table = table.grown()
  }
  const asns = table.keys()
  asns.sort()
  const position = new Uint32Array(table.capacity)
  for (let i = 0; i < asns.length; i++) position[table.slotOf(asns[i]!)] = i
  for (let i = 0; i < values.length; i++) values[i] = position[table.slotOf(values[i]!)]!
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
