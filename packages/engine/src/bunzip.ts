/// <reference path="./seek-bzip.d.ts" />
import Bunzip from 'seek-bzip'

const CHUNK = 1 << 16

/**
 * Decompresses bzip2 bytes (multi-stream too) with seek-bzip, handing the output to `push` in
 * chunks of 64 KiB so the whole decompressed text is never held at once. The chunk passed to
 * `push` is reused afterwards: copy what must be kept.
 *
 * The loop is seek-bzip's own `decode` loop, except that it never stops before the
 * end-of-stream marker and its CRC: `decode` treats input that ends exactly after a block as
 * complete, which would accept a file truncated at a block boundary.
 *
 * A block's output reaches `push` before its CRC can be checked (at the block's end). When
 * `push` throws, the rest of the block is still decoded (its output dropped) and the CRC
 * decides: a corrupt block is reported as such, not as whatever its garbage made `push` throw.
 *
 * @throws an `Error` on corrupt or truncated data (every block and stream is CRC-checked), or
 * whatever `push` throws.
 */
export function bunzip(compressed: Uint8Array, push: (chunk: Uint8Array) => void): void {
  const buffer = new Uint8Array(CHUNK)
  let length = 0
  let pushFailed = false
  let pushError: unknown
  const output = {
    writeByte(byte: number) {
      if (pushFailed) return
      buffer[length++] = byte
      if (length === CHUNK) {
        length = 0
        try {
          push(buffer)
        } catch (error) {
          pushFailed = true
          pushError = error
        }
      }
    },
  }
  let position = 0
  const input = {
    readByte() {
      if (position >= compressed.length) throw new Error('unexpected end of bzip2 data')
      return compressed[position++]!
    },
    read(target: Uint8Array, offset: number, count: number) {
      const n = Math.min(count, compressed.length - position)
      target.set(compressed.subarray(position, position + n), offset)
      position += n
      return n
    },
    seek(to: number) {
      position = to
    },
    eof() {
      return position >= compressed.length
    },
  }
  const decoder = new Bunzip(input, output)
  for (;;) {
    if (decoder._init_block()) {
      decoder._read_bunzip() // throws on a bad block CRC
      if (pushFailed) throw pushError
      continue
    }
    const expected = decoder.reader.read(32) >>> 0
    if (expected !== decoder.streamCRC) {
      throw new Error(`bad bzip2 stream CRC (got ${decoder.streamCRC} expected ${expected})`)
    }
    if (position >= compressed.length) break
    decoder._start_bunzip(input, output)
  }
  if (length > 0) push(buffer.subarray(0, length))
}
