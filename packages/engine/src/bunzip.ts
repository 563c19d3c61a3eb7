import { loadBzip2BlockDecoder } from './bzip2-block-decoder.js'
import { type Bzip2Sink, checkBzip2Ranges, decodeBzip2Range } from './bzip2-range.js'

/**
 * Decompresses bzip2 bytes (multi-stream too) on the calling thread, handing the text to
 * `sink` block by block (each block's CRC checked first), so the whole text is never held.
 * No block's text is decoded past `sink.room()`: a bomb is refused by `sink.refuse()`.
 *
 * Every block CRC and every stream CRC is checked: input truncated anywhere (even exactly at a
 * block boundary) or corrupt is an error.
 *
 * @throws {Bzip2Error} on corrupt or truncated data, or whatever `sink` throws.
 */
export async function bunzip(compressed: Uint8Array, sink: Bzip2Sink): Promise<void> {
  const decoder = await loadBzip2BlockDecoder()
  checkBzip2Ranges([decodeBzip2Range(compressed, 0, Number.POSITIVE_INFINITY, decoder, sink)])
}
