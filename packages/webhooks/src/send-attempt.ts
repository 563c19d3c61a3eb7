import type { ClaimedMessage } from './claim-messages.js'
import { webhookRequest } from './webhook-request.js'
import { checkWebhookTarget, type LookupAll } from './webhook-target.js'

/** How one attempt ended. */
export interface AttemptOutcome {
  attemptedAt: Date
  /** The receiver's HTTP status, or null when no answer came (see `error`). */
  status: number | null
  error: string | null
  durationMs: number
  /** A 2xx came back. */
  delivered: boolean
  /** Cut short by the sender's shutdown, not failed by the receiver: no attempt is counted. */
  interrupted: boolean
}

export interface AttemptContext {
  send: typeof fetch
  timeoutMs: number
  /** Aborted when the sender closes. */
  closing: AbortSignal
  allowPrivate: boolean
  lookup: LookupAll | undefined
  now: () => Date
}

/** One attempt at `message`: check the target, POST, and say how it ended (never throws). */
export async function sendAttempt(
  message: ClaimedMessage,
  ctx: AttemptContext,
): Promise<AttemptOutcome> {
  const attemptedAt = ctx.now()
  const started = performance.now()
  // A timer we hold, not `AbortSignal.timeout`: a timeout signal only `AbortSignal.any`
  // refers to may be garbage-collected before it fires (Node 20), and the attempt then waits
  // for an answer that never comes, holding its slot.
  const timeout = new AbortController()
  const timer = setTimeout(() => timeout.abort(), ctx.timeoutMs)
  const signal = AbortSignal.any([ctx.closing, timeout.signal])
  let status: number | null = null
  let error: string | null = null
  try {
    const response = await untilAborted(
      (async () => {
        const url = new URL(message.url)
        // Again at every send: the name may resolve elsewhere since the subscription.
        await checkWebhookTarget(url, { allowPrivate: ctx.allowPrivate, lookup: ctx.lookup })
        const { body, headers } = webhookRequest(message, ctx.now())
        // No redirects: a 3xx is an answer (not 2xx), and never a way around the address check.
        return ctx.send(url, { method: 'POST', headers, body, signal, redirect: 'manual' })
      })(),
      signal,
    )
    status = response.status
    // The body is never read: cancelling it closes the stream however much the receiver sends.
    await response.body?.cancel().catch(() => {})
  } catch (cause) {
    error = ctx.closing.aborted
      ? 'sender closed before an answer'
      : signal.aborted
        ? `no answer within ${ctx.timeoutMs} ms`
        : describe(cause)
  } finally {
    clearTimeout(timer)
  }
  const delivered = status !== null && status >= 200 && status < 300
  if (status !== null && !delivered) error = `HTTP ${status}`
  return {
    attemptedAt,
    status,
    error,
    durationMs: Math.round(performance.now() - started),
    delivered,
    interrupted: status === null && ctx.closing.aborted,
  }
}

/**
 * `promise`, or a rejection as soon as `signal` aborts: a `fetch` (or resolver) that ignores
 * its signal still cannot hold an attempt past its timeout. A late answer's body is released.
 */
function untilAborted(promise: Promise<Response>, signal: AbortSignal): Promise<Response> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason)
      promise.then((r) => r.body?.cancel().catch(() => {})).catch(() => {})
    }
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/** One line for the deliveries log: `fetch failed: ECONNREFUSED`, not a stack. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause as { code?: string; message?: string } | undefined
  const detail = cause?.code ?? cause?.message
  return detail ? `${error.message}: ${detail}` : error.message
}
