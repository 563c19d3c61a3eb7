import type { SnapshotMetadata } from './as-graph.js'
import { AsRelParseError } from './as-rel-parse-error.js'
import { EdgeList } from './edge-list.js'
import { MAX_ASN } from './max-asn.js'

const LF = 10
const CR = 13
const SPACE = 32
const TAB = 9
const HASH = 35
const PIPE = 124
const MINUS = 45
const ZERO = 48
const ONE = 49
const NINE = 57
const MAX_LINE_BYTES = 1 << 20

const metadataKeys: [prefix: string, key: keyof SnapshotMetadata][] = [
  ['input clique:', 'inputClique'],
  ['inferred clique:', 'inferredClique'],
  ['ixp ases:', 'ixpAses'],
]

/**
 * Reads AS-relationship text incrementally from byte chunks that may split lines anywhere
 * (inside a line, a CRLF or a multi-byte character). Data lines go into an {@link EdgeList};
 * the metadata comments are kept; everything else that is not blank or a comment is an error.
 */
export class AsRelLineReader {
  readonly edges = new EdgeList()
  readonly metadata: SnapshotMetadata = { inputClique: [], inferredClique: [], ixpAses: [] }
  /** The metadata lines read (the others keep their empty default). */
  readonly metadataFound = new Set<keyof SnapshotMetadata>()
  /** True once a data line with a 4th (source) column was read. */
  serial2 = false
  /** Number of lines completed so far. */
  lineCount = 0
  #carry: Uint8Array = new Uint8Array(0)
  #decoder = new TextDecoder()

  /** Reads one chunk; a trailing partial line is kept for the next chunk. */
  push(chunk: Uint8Array): void {
    let start = 0
    if (this.#carry.length > 0) {
      const newline = chunk.indexOf(LF)
      if (newline < 0) {
        this.#carry = concat(this.#carry, chunk)
        this.#checkCarry()
        return
      }
      const line = concat(this.#carry, chunk.subarray(0, newline))
      this.#carry = new Uint8Array(0)
      this.#line(line, 0, line.length)
      start = newline + 1
    }
    for (;;) {
      const next = this.#plainLine(chunk, start)
      if (next >= 0) {
        start = next
        continue
      }
      const newline = chunk.indexOf(LF, start)
      if (newline < 0) break
      this.#line(chunk, start, newline)
      start = newline + 1
    }
    if (start < chunk.length) {
      this.#carry = chunk.slice(start)
      this.#checkCarry()
    }
  }

  #checkCarry(): void {
    if (this.#carry.length > MAX_LINE_BYTES) {
      throw new AsRelParseError(
        `line ${this.lineCount + 1}: longer than ${MAX_LINE_BYTES} bytes (not AS-relationship text?)`,
        this.lineCount + 1,
      )
    }
  }

  /** The partial line carried over (not yet ended by a newline), handed out and cleared. */
  takeCarry(): Uint8Array {
    const carry = this.#carry
    this.#carry = new Uint8Array(0)
    return carry
  }

  /** Reads the last line when the input does not end with a newline. */
  end(): void {
    if (this.#carry.length > 0) {
      const line = this.#carry
      this.#carry = new Uint8Array(0)
      this.#line(line, 0, line.length)
    }
  }

  /**
   * Reads the line at `start` in one pass when it is a plain data line (`AS|AS|rel`, or with a
   * source column free of pipes and blanks, ended by a newline in this chunk), as almost every
   * line is: no search for the newline first, no trimming. Returns where the next line starts,
   * or -1 (nothing read) for any other line, which {@link #line} then reads in full.
   */
  #plainLine(bytes: Uint8Array, start: number): number {
    const n = bytes.length
    let i = this.#asnField(bytes, start)
    if (i < 0) return -1
    const a = this.#asn
    i = this.#asnField(bytes, i + 1)
    if (i < 0) return -1
    const b = this.#asn
    i++
    if (bytes[i] === MINUS && bytes[i + 1] === ONE) i += 2
    else if (bytes[i] === ZERO) i++
    else return -1
    if (bytes[i] !== LF) {
      if (bytes[i] !== PIPE) return -1
      const source = ++i
      for (; i < n; i++) {
        const c = bytes[i]!
        if (c === LF || c === PIPE || c === CR || c === SPACE || c === TAB) break
      }
      if (i === source || bytes[i] !== LF) return -1
      this.serial2 = true
    }
    this.lineCount++
    // self-loops are kept here so their AS stays in the graph; buildAsGraph drops the loop
    this.edges.add(a, b)
    return i + 1
  }

  /** The value of the last {@link #asnField} read (a field, not a returned pair: no allocation). */
  #asn = 0

  /**
   * Reads the ASN field at `start` (1 to 10 digits, at most {@link MAX_ASN}) into `#asn`;
   * returns the index of the pipe that ends it, or -1 when it is no such field.
   */
  #asnField(bytes: Uint8Array, start: number): number {
    let i = start
    let value = 0
    for (; i < bytes.length; i++) {
      const c = bytes[i]!
      if (c < ZERO || c > NINE) break
      value = value * 10 + (c - ZERO)
    }
    if (i === start || i - start > 10 || value > MAX_ASN || bytes[i] !== PIPE) return -1
    this.#asn = value
    return i
  }

  #line(bytes: Uint8Array, start: number, end: number): void {
    const lineNumber = ++this.lineCount
    while (end > start) {
      const c = bytes[end - 1]
      if (c === CR || c === SPACE || c === TAB) end--
      else break
    }
    while (start < end && (bytes[start] === SPACE || bytes[start] === TAB)) start++
    if (start === end) return
    if (bytes[start] === HASH) {
      this.#comment(bytes, start + 1, end)
      return
    }
    let i = start
    let a = 0
    let digits = 0
    for (; i < end; i++) {
      const c = bytes[i]!
      if (c < ZERO || c > NINE) break
      a = a * 10 + (c - ZERO)
      digits++
    }
    if (digits === 0 || digits > 10 || a > MAX_ASN || bytes[i] !== PIPE) {
      throw this.#error(bytes, start, end, lineNumber)
    }
    i++
    let b = 0
    digits = 0
    for (; i < end; i++) {
      const c = bytes[i]!
      if (c < ZERO || c > NINE) break
      b = b * 10 + (c - ZERO)
      digits++
    }
    if (digits === 0 || digits > 10 || b > MAX_ASN || bytes[i] !== PIPE) {
      throw this.#error(bytes, start, end, lineNumber)
    }
    i++
    // relationship: -1 (provider to customer) or 0 (peers)
    if (bytes[i] === MINUS && bytes[i + 1] === ONE) i += 2
    else if (bytes[i] === ZERO) i++
    else throw this.#error(bytes, start, end, lineNumber)
    if (i < end) {
      // serial-2: a 4th column (the inference source), non-empty, no further column
      if (bytes[i] !== PIPE || i + 1 >= end) throw this.#error(bytes, start, end, lineNumber)
      for (let j = i + 1; j < end; j++) {
        if (bytes[j] === PIPE) throw this.#error(bytes, start, end, lineNumber)
      }
      this.serial2 = true
    }
    // self-loops are kept here so their AS stays in the graph; buildAsGraph drops the loop
    this.edges.add(a, b)
  }

  #comment(bytes: Uint8Array, start: number, end: number): void {
    const text = this.#decoder.decode(bytes.subarray(start, end)).trim()
    const lower = text.toLowerCase()
    for (const [prefix, key] of metadataKeys) {
      if (lower.startsWith(prefix)) {
        const asns: number[] = []
        for (const token of text.slice(prefix.length).split(/[\s,]+/)) {
          if (/^\d{1,10}$/.test(token) && Number(token) <= MAX_ASN) asns.push(Number(token))
        }
        this.metadata[key] = asns
        this.metadataFound.add(key)
        return
      }
    }
  }

  #error(bytes: Uint8Array, start: number, end: number, lineNumber: number): AsRelParseError {
    const text = this.#decoder.decode(bytes.subarray(start, Math.min(end, start + 80)))
    return new AsRelParseError(
      `line ${lineNumber}: expected "AS|AS|-1", "AS|AS|0" or "AS|AS|rel|source", got ${JSON.stringify(text)}`,
      lineNumber,
    )
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}
