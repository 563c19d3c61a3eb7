import { createHash } from 'node:crypto'

/**
 * A byte stream passed through unchanged while its SHA-256 is computed on the way: the hash of
 * the file exactly as fetched (still compressed), without holding it. `hex()` is valid once the
 * stream has been read to its end.
 */
export function sha256PassThrough(input: ReadableStream<Uint8Array>): {
  stream: ReadableStream<Uint8Array>
  hex(): string
} {
  const hash = createHash('sha256')
  let digest: string | undefined
  const stream = input.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        hash.update(chunk)
        controller.enqueue(chunk)
      },
      flush() {
        digest = hash.digest('hex')
      },
    }),
  )
  return {
    stream,
    hex() {
      if (digest === undefined) throw new Error('the stream has not been read to its end')
      return digest
    },
  }
}
