/** How a snapshot's bytes are compressed, as told by their first bytes. */
export type Compression = 'bzip2' | 'gzip' | 'plain'

/**
 * Detects the compression from magic bytes (never from a file name): `BZh1`…`BZh9` is bzip2,
 * `1f 8b` is gzip, anything else is plain text.
 */
export function detectCompression(head: Uint8Array): Compression {
  if (head[0] === 0x1f && head[1] === 0x8b) return 'gzip'
  if (head[0] === 0x42 && head[1] === 0x5a && head[2] === 0x68) {
    const level = head[3]
    if (level === undefined || (level >= 0x31 && level <= 0x39)) return 'bzip2'
  }
  return 'plain'
}
