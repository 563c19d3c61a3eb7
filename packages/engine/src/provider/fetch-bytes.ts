import { ProviderError, tooLarge } from './provider-error.js'

/** How {@link fetchBytes} downloads. */
export interface FetchBytesOptions {
  fetch: typeof fetch
  timeoutMs: number
  retries: number
  retryDelayMs: number
  /** A body (declared or received) larger than this is refused, not retried. */
  maxBytes: number
  signal?: AbortSignal
}

class AttemptError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** A downloaded body and what the response said of the file. */
export interface FetchedBody {
  bytes: Uint8Array
  /** The response's `Last-Modified`, or null when absent or unreadable. */
  lastModified: Date | null
}

/** {@link fetchBody} without the response's metadata. */
export async function fetchBytes(url: string, options: FetchBytesOptions): Promise<Uint8Array> {
  return (await fetchBody(url, options)).bytes
}

/**
 * Downloads a whole body with `fetch`: each attempt times out after `timeoutMs` without progress
 * (waiting for headers, or for the next body chunk); network errors, timeouts, dropped bodies
 * and 5xx are retried with exponential back-off, 4xx are not. A body over `maxBytes` is cut
 * off as soon as it passes the cap (or refused on its `Content-Length`). Honours `signal` (rejects with
 * its reason).
 *
 * @throws {ProviderError} when it gives up.
 */
export async function fetchBody(url: string, options: FetchBytesOptions): Promise<FetchedBody> {
  const { signal } = options
  for (let attempt = 0; ; attempt++) {
    signal?.throwIfAborted()
    try {
      return await attemptOnce(url, options)
    } catch (error) {
      if (signal?.aborted) throw signal.reason
      if (error instanceof ProviderError) throw error
      const failure =
        error instanceof AttemptError
          ? error
          : new AttemptError(describe(error), true, undefined, { cause: error })
      if (!failure.retryable || attempt >= options.retries) {
        const attempts = attempt + 1
        const message =
          failure.status !== undefined
            ? `provider answered HTTP ${failure.status} for ${url}${attempts > 1 ? ` (after ${attempts} attempts)` : ''}`
            : `provider unreachable: ${url}: ${failure.message} (after ${attempts} attempt${attempts > 1 ? 's' : ''})`
        throw new ProviderError(message, url, { status: failure.status, cause: failure.cause })
      }
      await sleep(options.retryDelayMs * 2 ** attempt, signal)
    }
  }
}

async function attemptOnce(url: string, options: FetchBytesOptions): Promise<FetchedBody> {
  const controller = new AbortController()
  const onAbort = () => controller.abort(options.signal?.reason)
  options.signal?.addEventListener('abort', onAbort, { once: true })
  let timer: ReturnType<typeof setTimeout> | undefined
  const arm = () => {
    clearTimeout(timer)
    timer = setTimeout(
      () =>
        controller.abort(new AttemptError(`no data for ${options.timeoutMs} ms (timed out)`, true)),
      options.timeoutMs,
    )
  }
  try {
    arm()
    let response: Response
    try {
      response = await options.fetch(url, { signal: controller.signal })
    } catch (error) {
      throw controller.signal.reason instanceof AttemptError ? controller.signal.reason : error
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {})
      throw new AttemptError(`HTTP ${response.status}`, response.status >= 500, response.status)
    }
    const declared = Number(response.headers.get('content-length') ?? Number.NaN)
    if (declared > options.maxBytes) {
      await response.body?.cancel().catch(() => {})
      throw tooLarge(url, options.maxBytes)
    }
    const lastModified = httpDate(response.headers.get('last-modified'))
    if (!response.body) return { bytes: new Uint8Array(0), lastModified }
    const reader = response.body.getReader()
    const chunks: Uint8Array[] = []
    let length = 0
    try {
      for (;;) {
        arm()
        const next = await reader.read()
        if (next.done) break
        chunks.push(next.value)
        length += next.value.length
        if (length > options.maxBytes) throw tooLarge(url, options.maxBytes)
      }
    } catch (error) {
      if (error instanceof ProviderError) {
        await reader.cancel().catch(() => {})
        throw error
      }
      if (controller.signal.reason instanceof AttemptError) throw controller.signal.reason
      throw new AttemptError(
        `body broke off after ${length} bytes: ${describe(error)}`,
        true,
        undefined,
        {
          cause: error,
        },
      )
    }
    const body = new Uint8Array(length)
    let offset = 0
    for (const chunk of chunks) {
      body.set(chunk, offset)
      offset += chunk.length
    }
    return { bytes: body, lastModified }
  } finally {
    clearTimeout(timer)
    options.signal?.removeEventListener('abort', onAbort)
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : ''
  return `${error.message}${cause}`
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      signal?.removeEventListener('abort', abort)
      resolve()
    }
    const timer = setTimeout(done, ms)
    const abort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', abort, { once: true })
  })
}

/** An HTTP date header as a `Date`, or null when absent or not a date. */
function httpDate(value: string | null): Date | null {
  if (!value) return null
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? null : date
}
