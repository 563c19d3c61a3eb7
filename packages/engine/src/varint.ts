/**
 * Unsigned LEB128 varints of 32-bit values (7 bits a byte, low bits first, at most 5 bytes):
 * the small gaps of sorted lists take one byte.
 */
export class VarintWriter {
  #bytes = new Uint8Array(1 << 16)
  #length = 0

  write(value: number): void {
    if (this.#length + 5 > this.#bytes.length) {
      const grown = new Uint8Array(this.#bytes.length * 2)
      grown.set(this.#bytes)
      this.#bytes = grown
    }
    let rest = value
    while (rest >= 0x80) {
      this.#bytes[this.#length++] = (rest & 0x7f) | 0x80
      rest = Math.floor(rest / 0x80)
    }
    this.#bytes[this.#length++] = rest
  }

  /** The bytes written, in an array of their own length. */
  bytes(): Uint8Array {
    return this.#bytes.slice(0, this.#length)
  }
}

/**
 * Reads what {@link VarintWriter} wrote, from `at`; a malformed or missing value is a
 * `RangeError`. `at` is public so a hot loop can read one-byte values itself.
 */
export class VarintReader {
  readonly bytes: Uint8Array
  at: number

  constructor(bytes: Uint8Array, at = 0) {
    this.bytes = bytes
    this.at = at
  }

  get done(): boolean {
    return this.at === this.bytes.length
  }

  read(): number {
    const { bytes } = this
    const at = this.at
    // most values are one byte
    if (at < bytes.length && bytes[at]! < 0x80) {
      this.at = at + 1
      return bytes[at]!
    }
    let value = 0
    let scale = 1
    for (let i = 0; i < 5; i++) {
      const next = this.at++
      if (next >= bytes.length) throw new RangeError(`truncated at byte ${next}`)
      const byte = bytes[next]!
      value += (byte & 0x7f) * scale
      if (byte < 0x80) {
        if (value > 0xffff_ffff) throw new RangeError(`a value past 32 bits at byte ${next}`)
        return value
      }
      scale *= 0x80
    }
    throw new RangeError(`a value longer than 5 bytes at byte ${this.at - 1}`)
  }
}
