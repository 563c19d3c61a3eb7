/** A web stream over bytes already in memory, handed out in 64 KiB chunks. */
export function bytesStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let offset = 0
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close()
        return
      }
      controller.enqueue(bytes.subarray(offset, offset + (1 << 16)))
      offset += 1 << 16
    },
  })
}
