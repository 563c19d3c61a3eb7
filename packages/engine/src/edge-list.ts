/** A growable list of ASN pairs in one typed array (`a0, b0, a1, b1, …`). */
export class EdgeList {
  #pairs = new Uint32Array(1 << 16)
  #length = 0

  /** Number of pairs added. */
  get size(): number {
    return this.#length >>> 1
  }

  add(a: number, b: number): void {
    if (this.#length + 2 > this.#pairs.length) {
      const grown = new Uint32Array(this.#pairs.length * 2)
      grown.set(this.#pairs)
      this.#pairs = grown
    }
    this.#pairs[this.#length++] = a
    this.#pairs[this.#length++] = b
  }

  /** The pairs added so far (a view, not a copy). */
  view(): Uint32Array {
    return this.#pairs.subarray(0, this.#length)
  }
}
