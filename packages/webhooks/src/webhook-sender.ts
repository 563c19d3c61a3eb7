import type { Database } from '@kcore/db'
import { type ClaimedMessage, claimDueMessages } from './claim-messages.js'
import { guardedFetch } from './guarded-fetch.js'
import { pruneMessages } from './prune-messages.js'
import { recordAttempt } from './record-attempt.js'
import { DEFAULT_RETRY_DELAYS_MS } from './retry-schedule.js'
import type { WebhookTables } from './schema.js'
import { type AttemptContext, sendAttempt } from './send-attempt.js'
import type { WebhookSender, WebhookSenderOptions } from './sender-options.js'
import { followSource } from './webhook-source.js'

const DAY = 24 * 60 * 60 * 1000
/** Changes (revisions) a pass makes into messages per source: a backlog is read in steps. */
const FOLLOW_BATCH = 100
const PRUNE_EVERY_MS = 60 * 60 * 1000

/**
 * Sends the outbox's messages outside request handling. Each pass makes the messages of the
 * `sources`' changes committed since (see `WebhookSource`), leases due messages (see
 * `claimDueMessages`: one sender at a time per message, across processes), sends each
 * (`sendAttempt`) and logs every attempt in `webhook_delivery` (`recordAttempt`).
 */
export function createWebhookSender(
  database: Database,
  options: WebhookSenderOptions = {},
): WebhookSender {
  const db = database.db.withTables<WebhookTables>()
  const timeoutMs = options.timeoutMs ?? 10_000
  const leaseMs = options.leaseMs ?? timeoutMs + 60_000
  if (!(leaseMs > timeoutMs))
    throw new RangeError(`leaseMs (${leaseMs}) must exceed timeoutMs (${timeoutMs})`)
  const retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS
  const concurrency = options.concurrency ?? 8
  const perSubscription = options.perSubscription ?? 2
  const pollIntervalMs = options.pollIntervalMs ?? 1000
  const notifyDelayMs = options.notifyDelayMs ?? 250
  const retentionMs = options.retentionMs ?? 7 * DAY
  // Without private targets, connections are checked where they are made (DNS rebinding).
  const guard = options.fetch || options.allowPrivate ? undefined : guardedFetch(options.lookup)
  const now = options.now ?? (() => new Date())
  const onError = options.onError ?? (() => {})
  const sources = options.sources ?? []

  const closing = new AbortController()
  const attempt: AttemptContext = {
    send: options.fetch ?? guard?.fetch ?? fetch,
    timeoutMs,
    closing: closing.signal,
    allowPrivate: options.allowPrivate ?? false,
    lookup: options.lookup,
    now,
  }
  /** Attempts in flight, and how many per subscription. */
  const inFlight = new Set<Promise<void>>()
  const perSubscriptionInFlight = new Map<string, number>()
  let running = false
  let pass: Promise<void> | undefined
  let again = false
  let timer: NodeJS.Timeout | undefined
  let notified: NodeJS.Timeout | undefined
  let lastPrune = 0

  function wake(): void {
    if (!running) return
    if (pass) {
      again = true
      return
    }
    clearTimeout(timer)
    pass = runPasses().finally(() => {
      pass = undefined
      if (!running) return
      // `unref`: a pending poll never keeps a process alive on its own.
      timer = setTimeout(wake, pollIntervalMs)
      timer.unref()
    })
  }

  /** Passes while one finds more to do: while running, or (`untilIdle`) for `flush`. */
  async function runPasses(untilIdle = false): Promise<void> {
    do {
      again = false
      try {
        for (const source of sources) {
          // One source failing (its store not migrated yet, say) holds back no other message.
          try {
            if (await followSource(database.db, source, FOLLOW_BATCH)) again = true
          } catch (error) {
            onError(error)
          }
        }
        const free = concurrency - inFlight.size
        if (free > 0) {
          const claimed = await claimDueMessages(db, {
            limit: free,
            perSubscription,
            busy: perSubscriptionInFlight,
            at: now(),
            leaseMs,
          })
          for (const message of claimed) track(message)
          // A full batch: more may be due.
          if (claimed.length === free) again = true
        }
        if (Date.now() - lastPrune > PRUNE_EVERY_MS) {
          lastPrune = Date.now()
          await pruneMessages(db, new Date(now().getTime() - retentionMs))
        }
      } catch (error) {
        onError(error)
        return
      }
    } while (again && (running || untilIdle))
  }

  function track(message: ClaimedMessage): void {
    const key = message.subscriptionId
    perSubscriptionInFlight.set(key, (perSubscriptionInFlight.get(key) ?? 0) + 1)
    const delivery = sendAttempt(message, attempt)
      .then((outcome) => recordAttempt(db, message, outcome, retryDelaysMs))
      .catch(onError)
      .finally(() => {
        inFlight.delete(delivery)
        const left = (perSubscriptionInFlight.get(key) ?? 1) - 1
        if (left > 0) perSubscriptionInFlight.set(key, left)
        else perSubscriptionInFlight.delete(key)
        wake()
      })
    inFlight.add(delivery)
  }

  return {
    start() {
      if (running || closing.signal.aborted) return
      running = true
      wake()
    },
    notify() {
      if (!running || notified) return
      if (notifyDelayMs <= 0) return wake()
      notified = setTimeout(() => {
        notified = undefined
        wake()
      }, notifyDelayMs)
      notified.unref()
    },
    async flush() {
      if (closing.signal.aborted) return
      await pass
      const started = new Set(inFlight)
      await runPasses(true)
      await Promise.all([...inFlight].filter((delivery) => !started.has(delivery)))
    },
    async close() {
      running = false
      clearTimeout(timer)
      clearTimeout(notified)
      closing.abort()
      await pass
      await Promise.all(inFlight)
      await guard?.close()
    },
  }
}
