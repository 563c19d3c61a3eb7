import { Buffer } from 'node:buffer'
import type { TrendPoint } from '@kcore/store'

const utf8 = (text: string) => Buffer.from(text, 'utf8')
const EMPTY = utf8('[]')
const OPEN = utf8('[')
const CLOSE = utf8(']')
const OPEN_OBJECT = utf8('{')
const CLOSE_OBJECT = utf8('}')

/**
 * `,` followed by the JSON of one of the read model's shared points (they are frozen, so their
 * JSON never changes), as UTF-8: a trend answer copies ~460 memoized byte runs into one buffer
 * instead of formatting 460 floats, joining 460 strings and encoding the result again.
 */
const pointBytes = new WeakMap<TrendPoint, Uint8Array>()

function commaPoint(point: TrendPoint): Uint8Array {
  let bytes = pointBytes.get(point)
  if (bytes === undefined) {
    bytes = utf8(`,${JSON.stringify(point)}`)
    if (Object.isFrozen(point)) pointBytes.set(point, bytes)
  }
  return bytes
}

/**
 * One JSON answer built as UTF-8 pieces and copied once into a single buffer by
 * {@link JsonBytes.bytes}: what `JSON.stringify` would write, byte for byte.
 */
export class JsonBytes {
  readonly #pieces: Uint8Array[] = []
  #length = 0

  #raw(bytes: Uint8Array): this {
    this.#pieces.push(bytes)
    this.#length += bytes.length
    return this
  }

  /** Appends JSON text as it is. */
  text(json: string): this {
    return this.#raw(utf8(json))
  }

  /** Appends `JSON.stringify(points)`, reusing the bytes of shared (frozen) points. */
  points(points: readonly TrendPoint[]): this {
    if (points.length === 0) return this.#raw(EMPTY)
    this.#raw(OPEN)
    this.#raw(commaPoint(points[0]!).subarray(1))
    for (let i = 1; i < points.length; i++) this.#raw(commaPoint(points[i]!))
    return this.#raw(CLOSE)
  }

  /**
   * Appends `JSON.stringify({ ...head, [key]: value })`, the value written by `value` as the last
   * member: `head` must be a non-empty plain object without `key`.
   */
  objectWith(head: object, key: string, value: (out: this) => void): this {
    this.text(`${JSON.stringify(head).slice(0, -1)},${JSON.stringify(key)}:`)
    value(this)
    return this.#raw(CLOSE_OBJECT)
  }

  /**
   * Appends `JSON.stringify(record)` with each value written by `value`: the members in the
   * order `JSON.stringify` uses (integer-like keys ascending, then insertion order).
   */
  record<T>(record: Record<string, T>, value: (out: this, item: T) => void): this {
    const keys = Object.keys(record)
    this.#raw(OPEN_OBJECT)
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!
      this.text(`${i === 0 ? '' : ','}${JSON.stringify(key)}:`)
      value(this, record[key]!)
    }
    return this.#raw(CLOSE_OBJECT)
  }

  /** The pieces in one buffer. */
  bytes(): Uint8Array<ArrayBuffer> {
    const out = Buffer.allocUnsafe(this.#length)
    let offset = 0
    for (const piece of this.#pieces) {
      out.set(piece, offset)
      offset += piece.length
    }
    return out
  }
}
