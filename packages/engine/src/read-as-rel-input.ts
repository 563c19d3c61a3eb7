import { AsRelParseError } from './as-rel-parse-error.js'
import { bunzip } from './bunzip.js'
import type { Bzip2Sink } from './bzip2-range.js'
import { concatArrays } from './concat-arrays.js'
import { type Compression, detectCompression } from './detect-compression.js'

/** What {@link parseAsRel} reads: text, bytes (plain, bzip2 or gzip) or a web byte stream. */
export type AsRelInput = string | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array>

const SLICE = 1 << 20

/**
 * Where the text goes: `push` takes it chunk by chunk; `lineAt` tells the line being read (for
 * errors); `room` and `refuse` are the decompressed size cap, which bzip2 decoding consults
 * before decoding a block (push still counts every chunk).
 */
export interface TextSink extends Bzip2Sink {
  lineAt(): number
}

/**
 * Hands the decompressed bytes of `input` to `sink.push`, chunk by chunk. Corrupt or truncated
 * compressed data becomes an {@link AsRelParseError} at line `sink.lineAt()`; errors of the
 * source stream itself, of the sink and aborts pass through unchanged.
 */
export async function readAsRelInput(
  input: AsRelInput,
  sink: TextSink,
  signal?: AbortSignal,
): Promise<void> {
  signal?.throwIfAborted()
  if (typeof input === 'string') {
    const encoder = new TextEncoder()
    for (let start = 0; start < input.length; ) {
      // cut after a newline so no surrogate pair is split
      let end = Math.min(input.length, start + SLICE)
      if (end < input.length) {
        const newline = input.lastIndexOf('\n', end)
        if (newline >= start) end = newline + 1
      }
      sink.push(encoder.encode(input.slice(start, end)))
      signal?.throwIfAborted()
      start = end
    }
    return
  }
  if (input instanceof ArrayBuffer || ArrayBuffer.isView(input)) {
    const bytes =
      input instanceof ArrayBuffer
        ? new Uint8Array(input)
        : new Uint8Array(input.buffer, input.byteOffset, input.byteLength)
    return readBytes(bytes, detectCompression(bytes), sink, signal)
  }
  return readStream(input, sink, signal)
}

async function readBytes(
  bytes: Uint8Array,
  compression: Compression,
  sink: TextSink,
  signal?: AbortSignal,
): Promise<void> {
  if (compression === 'plain') {
    for (let start = 0; start < bytes.length; start += SLICE) {
      sink.push(bytes.subarray(start, start + SLICE))
      signal?.throwIfAborted()
    }
    return
  }
  if (compression === 'bzip2') {
    try {
      await bunzip(bytes, {
        push: (text) => {
          signal?.throwIfAborted()
          sink.push(text)
        },
        room: () => sink.room(),
        refuse: () => sink.refuse(),
      })
    } catch (error) {
      throw compressionError(error, 'bzip2', sink.lineAt(), signal)
    }
    return
  }
  return readGzip(singleChunkStream(bytes), sink, signal)
}

async function readStream(
  stream: ReadableStream<Uint8Array>,
  sink: TextSink,
  signal?: AbortSignal,
): Promise<void> {
  const reader = stream.getReader()
  const head: Uint8Array[] = []
  let headLength = 0
  let done = false
  try {
    while (headLength < 4) {
      const next = await reader.read()
      if (next.done) {
        done = true
        break
      }
      head.push(next.value)
      headLength += next.value.length
      signal?.throwIfAborted()
    }
    const compression = detectCompression(
      concatArrays((n) => new Uint8Array(n), head).subarray(0, 4),
    )
    if (compression === 'plain') {
      for (const chunk of head) sink.push(chunk)
      while (!done) {
        const next = await reader.read()
        signal?.throwIfAborted()
        if (next.done) done = true
        else sink.push(next.value)
      }
      return
    }
    if (compression === 'bzip2') {
      // bzip2 is decoded from the whole compressed bytes (a few MB), to find its blocks; the
      // text still goes to the parser block by block.
      const chunks = head
      while (!done) {
        const next = await reader.read()
        signal?.throwIfAborted()
        if (next.done) done = true
        else chunks.push(next.value)
      }
      return readBytes(
        concatArrays((n) => new Uint8Array(n), chunks),
        'bzip2',
        sink,
        signal,
      )
    }
    let sourceError: unknown
    let sourceFailed = false
    const rest = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of head) controller.enqueue(chunk)
      },
      async pull(controller) {
        try {
          const next = await reader.read()
          if (next.done) {
            done = true
            controller.close()
          } else controller.enqueue(next.value)
        } catch (error) {
          sourceFailed = true
          sourceError = error
          controller.error(error)
        }
      },
      cancel(reason) {
        return reader.cancel(reason)
      },
    })
    try {
      await readGzip(rest, sink, signal)
    } catch (error) {
      throw sourceFailed ? sourceError : error
    }
  } catch (error) {
    if (!done) await reader.cancel(error).catch(() => {})
    throw error
  } finally {
    reader.releaseLock()
  }
}

async function readGzip(
  compressed: ReadableStream<Uint8Array>,
  sink: TextSink,
  signal?: AbortSignal,
): Promise<void> {
  const gunzip = new DecompressionStream('gzip') as unknown as ReadableWritablePair<
    Uint8Array,
    Uint8Array
  >
  const reader = compressed.pipeThrough(gunzip).getReader()
  let failed = true
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>
      try {
        next = await reader.read()
      } catch (error) {
        throw compressionError(error, 'gzip', sink.lineAt(), signal)
      }
      signal?.throwIfAborted()
      if (next.done) break
      sink.push(next.value)
    }
    failed = false
  } finally {
    if (failed) await reader.cancel().catch(() => {})
  }
}

function compressionError(
  error: unknown,
  kind: 'bzip2' | 'gzip',
  line: number,
  signal?: AbortSignal,
): unknown {
  if (error instanceof AsRelParseError) return error
  if (signal?.aborted && error === signal.reason) return error
  const detail = error instanceof Error ? error.message : String(error)
  return new AsRelParseError(
    `corrupt or truncated ${kind} data (at line ${line}): ${detail}`,
    line,
    { cause: error },
  )
}

function singleChunkStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes)
      controller.close()
    },
  })
}
