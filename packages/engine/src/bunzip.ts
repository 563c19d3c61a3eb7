import { ChunkWriter } from './bzip2-block-reader.js'
import { checkBzip2Streams, decodeBzip2Range } from './bzip2-range.js'

/**
 * Decompresses bzip2 bytes (multi-stream too) on the calling thread, handing the output to
 * `push` in chunks of 128 KiB so the whole decompressed text is never held at once. The chunk
 * passed to `push` is reused afterwards: copy what must be kept.
 *
 * Every block CRC is checked as the block ends, every stream CRC at the end: input truncated
 * anywhere (even exactly at a block boundary) or corrupt is an error. A block's bytes reach
 * `push` before its CRC is known; when `push` throws, the rest of the block is still decoded
 * (its output dropped) and the CRC decides: a corrupt block is reported as such, not as
 * whatever its garbage made `push` throw.
 *
 * @throws {Bzip2Error} on corrupt or truncated data, or whatever `push` throws.
 */
export function bunzip(compressed: Uint8Array, push: (chunk: Uint8Array) => void): void {
  const writer = new ChunkWriter(push)
  const { items } = decodeBzip2Range(compressed, 0, Number.POSITIVE_INFINITY, writer)
  checkBzip2Streams(items)
  writer.flush()
  writer.rethrow()
}
