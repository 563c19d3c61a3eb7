import Bunzip from 'seek-bzip'

const CHUNK = 1 << 16

/**
 * Decompresses bzip2 bytes (multi-stream too), handing the output to `push` in chunks of 64 KiB
 * so the whole decompressed text is never held at once. The chunk passed to `push` is reused
 * afterwards: copy what must be kept. Throws the library's error on corrupt or truncated data
 * (every block and the stream are CRC-checked), or whatever `push` throws.
 */
export function bunzip(compressed: Uint8Array, push: (chunk: Uint8Array) => void): void {
  const buffer = new Uint8Array(CHUNK)
  let length = 0
  Bunzip.decode(
    compressed,
    {
      writeByte(byte: number) {
        buffer[length++] = byte
        if (length === CHUNK) {
          push(buffer)
          length = 0
        }
      },
    },
    true,
  )
  if (length > 0) push(buffer.subarray(0, length))
}
