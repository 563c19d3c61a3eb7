import type { WebhookSource } from './webhook-source.js'
import type { LookupAll } from './webhook-target.js'

export interface WebhookSenderOptions {
  /** Send to loopback and private addresses too (must match the subscriptions' setting). */
  allowPrivate?: boolean | undefined
  /** A 2xx within this delivers a message; default 10 s. */
  timeoutMs?: number | undefined
  /**
   * How long a claimed message is left to its sender before another may send it: a sender that
   * died mid-send holds its messages this long. Must exceed `timeoutMs` (a slow but live send
   * is never duplicated); default `timeoutMs` + 60 s.
   */
  leaseMs?: number | undefined
  /** Waits before each retry; default `DEFAULT_RETRY_DELAYS_MS`. */
  retryDelaysMs?: readonly number[] | undefined
  /** Requests in flight at most in this process; default 8. */
  concurrency?: number | undefined
  /**
   * Requests in flight at most per subscription in this process; default 2. A receiver that
   * never answers then holds two slots, and every other receiver keeps being served.
   */
  perSubscription?: number | undefined
  /** How often to look for due messages when nobody calls `notify()`; default 1 s. */
  pollIntervalMs?: number | undefined
  /**
   * How long a pass waits after a `notify()` (default 250 ms): the writes of a burst share one
   * pass (one source read, one render, one insert) instead of each running its own beside the
   * requests that follow it (`bench:webhooks` measures both). 0: at once.
   */
  notifyDelayMs?: number | undefined
  /** Delivered and failed messages (and their attempts) are dropped this long after; default 7 days. */
  retentionMs?: number | undefined
  /**
   * The HTTP client. Default: a `fetch` that checks every address it connects to (see
   * `guardedFetch`), or the global `fetch` with `allowPrivate`. Tests inject one.
   */
  fetch?: typeof fetch | undefined
  /** The clock that dates attempts, leases and retries; default `new Date()`. */
  now?: (() => Date) | undefined
  /** Resolves host names for the send-time address check (default: the system resolver). */
  lookup?: LookupAll | undefined
  /**
   * Stores whose committed changes become messages here, after the commit (see
   * {@link WebhookSource}): each pass reads what came since and writes the messages first.
   */
  sources?: readonly WebhookSource[] | undefined
  /** Errors of the loop itself (database unavailable); it keeps polling. Default: ignored. */
  onError?: ((error: unknown) => void) | undefined
}

export interface WebhookSender {
  /** Starts the loop: a pass now, then one per poll interval and on every `notify()`. */
  start(): void
  /**
   * Looks for the sources' new changes and due messages soon (`notifyDelayMs`): call after a
   * commit.
   */
  notify(): void
  /**
   * Passes now, started or not, until one finds nothing more to make or claim, resolving once
   * every attempt they began is recorded: for a command that sends what is due and exits, and
   * for tests.
   */
  flush(): Promise<void>
  /**
   * Stops claiming, aborts requests in flight (their messages are released for another try,
   * not counted as attempts) and waits until each attempt is recorded.
   */
  close(): Promise<void>
}
