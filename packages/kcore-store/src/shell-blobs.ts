import { Buffer } from 'node:buffer'
import { sql } from 'kysely'

/**
 * The compact form of one snapshot's shell indices, as stored in `kcore_snapshot_shells`: the
 * ASNs sorted ascending as uint32 little-endian, and each one's shell index at the same position
 * as an unsigned little-endian integer one, two or four bytes wide (the narrowest that holds the
 * snapshot's largest shell index). The width is not stored: it is the shell bytes over the ASN
 * count, so a blob pair is read back without any other column.
 */

/** Largest shell index the form holds (its widest field). */
export const MAX_STORED_SHELL = 0xffff_ffff

/** Shell indices by position, in the width they were stored in. */
export type ShellArray = Uint8Array | Uint16Array | Uint32Array

/** One snapshot's shell indices, decoded: parallel arrays, ascending ASN. */
export interface DecodedShells {
  asns: Uint32Array
  shells: ShellArray
}

/** The two blobs of one snapshot. */
export interface ShellBlobs {
  asns: Uint8Array
  shells: Uint8Array
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/** Bytes per shell index for a snapshot whose largest is `maxShell`. */
export function shellWidth(maxShell: number): 1 | 2 | 4 {
  return maxShell <= 0xff ? 1 : maxShell <= 0xffff ? 2 : 4
}

/**
 * Encodes `(asns[i], shells[i])` pairs, in any order, as {@link ShellBlobs}. The caller has
 * checked them (distinct ASNs, shell indices integers in 0..{@link MAX_STORED_SHELL}).
 */
export function encodeShells(asns: ArrayLike<number>, shells: ArrayLike<number>): ShellBlobs {
  const n = asns.length
  let sorted = true
  let maxShell = 0
  for (let i = 0; i < n; i++) {
    if (i > 0 && asns[i]! < asns[i - 1]!) sorted = false
    if (shells[i]! > maxShell) maxShell = shells[i]!
  }
  // Positions in ASN order (the engine lists ASes in the order it met them).
  const order = new Uint32Array(n)
  for (let i = 0; i < n; i++) order[i] = i
  if (!sorted) order.sort((a, b) => asns[a]! - asns[b]!)
  const asnBytes = new Uint8Array(n * 4)
  const asnView = new DataView(asnBytes.buffer)
  const sortedShells = new Uint32Array(n)
  for (let i = 0; i < n; i++) {
    const from = order[i]!
    asnView.setUint32(i * 4, asns[from]!, true)
    sortedShells[i] = shells[from]!
  }
  return { asns: asnBytes, shells: packLittleEndian(sortedShells, shellWidth(maxShell)) }
}

/**
 * `values` as unsigned little-endian integers `width` bytes wide (the caller has checked they
 * fit): the form of a shell blob.
 */
export function packLittleEndian(values: ArrayLike<number>, width: 1 | 2 | 4): Uint8Array {
  const bytes = new Uint8Array(values.length * width)
  const view = new DataView(bytes.buffer)
  for (let i = 0; i < values.length; i++) {
    if (width === 1) bytes[i] = values[i]!
    else if (width === 2) view.setUint16(i * 2, values[i]!, true)
    else view.setUint32(i * 4, values[i]!, true)
  }
  return bytes
}

/** A copy of `bytes` (any offset) as an aligned array of little-endian `width`-byte integers. */
export function littleEndian(bytes: Uint8Array, width: 1 | 2 | 4): ShellArray {
  const n = bytes.length / width
  if (width === 1) return Uint8Array.from(bytes)
  if (LITTLE_ENDIAN) {
    const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)
    return width === 2 ? new Uint16Array(copy) : new Uint32Array(copy)
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length)
  const out = width === 2 ? new Uint16Array(n) : new Uint32Array(n)
  for (let i = 0; i < n; i++)
    out[i] = width === 2 ? view.getUint16(i * 2, true) : view.getUint32(i * 4, true)
  return out
}

/** A blob of ASNs (uint32 little-endian) as an aligned array of its own. */
export function decodeAsns(bytes: Uint8Array): Uint32Array {
  if (bytes.length % 4 !== 0) throw new RangeError(`ASN blob of ${bytes.length} bytes`)
  return littleEndian(bytes, 4) as Uint32Array
}

/** {@link ShellBlobs} back as arrays; throws on blobs no {@link encodeShells} made. */
export function decodeShells(blobs: ShellBlobs): DecodedShells {
  const asns = decodeAsns(blobs.asns)
  const n = asns.length
  const width = n === 0 ? 1 : blobs.shells.length / n
  if (width !== 1 && width !== 2 && width !== 4)
    throw new RangeError(`shell blob of ${blobs.shells.length} bytes for ${n} ASNs`)
  if (n === 0 && blobs.shells.length !== 0)
    throw new RangeError(`shell blob of ${blobs.shells.length} bytes for no ASN`)
  return { asns, shells: littleEndian(blobs.shells, width) }
}

/**
 * ASNs per block of a snapshot's fence (see {@link fenceOf}). 256 keeps a fence under 2 KB up to
 * ~250k ASNs (inline in its row, no TOAST fetch; today's snapshots have ~80k) and a block at
 * 1 KB of the ASN blob (one or two of PostgreSQL's ~2 KB out-of-line chunks). Stored fences
 * were cut with it: changing it takes a migration that cuts them again.
 */
export const FENCE_STRIDE = 256

/**
 * The fence of a snapshot's ascending ASNs: every {@link FENCE_STRIDE}-th one, from the first.
 * The block of positions `[i * FENCE_STRIDE, (i + 1) * FENCE_STRIDE)` holds exactly the ASNs
 * from `fence[i]` up to (not including) `fence[i + 1]`, so an AS is found by one search of
 * the fence (PostgreSQL's `width_bucket`) and one of a 1 KB slice of the blob, instead of a
 * search of the whole blob. Empty for no ASN.
 */
export function fenceOf(asns: Uint32Array): Uint32Array {
  const fence = new Uint32Array(Math.ceil(asns.length / FENCE_STRIDE))
  for (let i = 0; i < fence.length; i++) fence[i] = asns[i * FENCE_STRIDE]!
  return fence
}

/** Position of `asn` in the ascending `asns`, or -1. */
export function indexOfAsn(asns: Uint32Array, asn: number): number {
  let lo = 0
  let hi = asns.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (asns[mid]! < asn) lo = mid + 1
    else hi = mid
  }
  return lo < asns.length && asns[lo] === asn ? lo : -1
}

/** The ascending union of two ascending ASN arrays (each without repeats). */
export function unionAsns(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(a.length + b.length)
  let i = 0
  let j = 0
  let k = 0
  while (i < a.length && j < b.length) {
    const x = a[i]!
    const y = b[j]!
    if (x < y) out[k++] = a[i++]!
    else if (y < x) out[k++] = b[j++]!
    else {
      out[k++] = x
      i++
      j++
    }
  }
  while (i < a.length) out[k++] = a[i++]!
  while (j < b.length) out[k++] = b[j++]!
  return k === out.length ? out : out.slice(0, k)
}

/** The ASNs of ascending `a` that ascending `b` lacks. */
export function exceptAsns(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out: number[] = []
  let j = 0
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    while (j < b.length && b[j]! < x) j++
    if (j >= b.length || b[j] !== x) out.push(x)
  }
  return Uint32Array.from(out)
}

/** `asns` as uint32 little-endian bytes. */
export function encodeAsns(asns: Uint32Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(asns.buffer, asns.byteOffset, asns.byteLength)
  const bytes = new Uint8Array(asns.length * 4)
  const view = new DataView(bytes.buffer)
  for (let i = 0; i < asns.length; i++) view.setUint32(i * 4, asns[i]!, true)
  return bytes
}

/**
 * How many positions hold each shell index, as `[shell, count]` ascending by shell index, empty
 * shells left out. A dense count up to 2^16 (every real snapshot), a map past it.
 */
export function shellCounts(shells: ShellArray, maxShell: number): [number, number][] {
  if (maxShell <= 0xffff) {
    const counts = new Uint32Array(maxShell + 1)
    for (let i = 0; i < shells.length; i++) counts[shells[i]!]!++
    const out: [number, number][] = []
    counts.forEach((count, shell) => {
      if (count > 0) out.push([shell, count])
    })
    return out
  }
  const counts = new Map<number, number>()
  for (let i = 0; i < shells.length; i++) counts.set(shells[i]!, (counts.get(shells[i]!) ?? 0) + 1)
  return [...counts].sort((a, b) => a[0] - b[0])
}

/**
 * A blob column as base64 text in a result: both drivers read `bytea` in the text protocol as
 * hex, twice the blob's size to send and parse; base64 is a third more than the blob, and
 * decoding it is native. With {@link fromBase64} on the other end.
 */
export const base64 = (column: string) => sql<string>`encode(${sql.ref(column)}, 'base64')`

/** {@link base64} text back as bytes (the line breaks PostgreSQL inserts are skipped). */
export function fromBase64(text: string): Uint8Array {
  return Buffer.from(text, 'base64')
}

/**
 * `bytes` as a `bytea` parameter sent as base64 text and decoded by the database: PGlite
 * serializes a binary parameter byte by byte (~110 ms for a 300 KB blob against ~10 ms for
 * the text), and both drivers take text as is.
 */
export function blobParam(bytes: Uint8Array) {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
  return sql<Uint8Array>`decode(${text}, 'base64')`
}
