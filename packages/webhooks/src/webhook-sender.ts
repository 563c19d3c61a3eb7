import { randomUUID } from 'node:crypto'
import type { Database } from '@kcore/db'
import { sql } from 'kysely'
import { guardedFetch } from './guarded-fetch.js'
import { DEFAULT_RETRY_DELAYS_MS, nextAttemptAt } from './retry-schedule.js'
import type { WebhookTables } from './schema.js'
import { type OutboxMessage, webhookRequest } from './webhook-request.js'
import { followSource, type WebhookSource } from './webhook-source.js'
import { checkWebhookTarget, type LookupAll } from './webhook-target.js'

export interface WebhookSenderOptions {
  /** Send to loopback and private addresses too (must match the subscriptions' setting). */
  allowPrivate?: boolean
  /** A 2xx within this delivers a message; default 10 s. */
  timeoutMs?: number
  /**
   * How long a claimed message is left to its sender before another may send it: a sender that
   * died mid-send holds its messages this long. Must exceed `timeoutMs` (a slow but live send
   * is never duplicated); default `timeoutMs` + 60 s.
   */
  leaseMs?: number
  /** Waits before each retry; see {@link DEFAULT_RETRY_DELAYS_MS}. */
  retryDelaysMs?: readonly number[]
  /** Requests in flight at most in this process; default 8. */
  concurrency?: number
  /**
   * Requests in flight at most per subscription in this process; default 2. A receiver that
   * never answers then holds two slots, and every other receiver keeps being served.
   */
  perSubscription?: number
  /** How often to look for due messages when nobody calls `notify()`; default 1 s. */
  pollIntervalMs?: number
  /**
   * How long a pass waits after a `notify()` (default 250 ms): the writes of a burst share one
   * pass (one source read, one render, one insert) instead of each running its own beside the
   * requests that follow it (`bench:webhooks`, a receiver that never answers: request p99
   * 1.30-1.40× without webhooks at 50 ms, 0.97-1.20× at 250 ms). 0: at once.
   */
  notifyDelayMs?: number
  /** Delivered and failed messages (and their attempts) are dropped this long after; default 7 days. */
  retentionMs?: number
  /**
   * The HTTP client. Default: a `fetch` that checks every address it connects to (see
   * `guardedFetch`), or the global `fetch` with `allowPrivate`. Tests inject one.
   */
  fetch?: typeof fetch
  /** The clock that dates attempts, leases and retries; default `new Date()`. */
  now?: () => Date
  /** Resolves host names for the send-time address check (default: the system resolver). */
  lookup?: LookupAll
  /**
   * Stores whose committed changes become messages here, after the commit (see
   * {@link WebhookSource}): each pass reads what came since and writes the messages first.
   */
  sources?: readonly WebhookSource[]
  /** Errors of the loop itself (database unavailable); it keeps polling. Default: ignored. */
  onError?: (error: unknown) => void
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

interface Claimed extends OutboxMessage {
  subscriptionId: string
  url: string
  attempts: number
  lease: string
}

const DAY = 24 * 60 * 60 * 1000
/** Changes (revisions) a pass makes into messages per source: a backlog is read in steps. */
const FOLLOW_BATCH = 100
const PRUNE_EVERY_MS = 60 * 60 * 1000

/**
 * Sends the outbox's messages outside request handling. Each pass claims due messages with
 * `FOR UPDATE SKIP LOCKED` and a lease (`locked_until`), so with several processes on one
 * PostgreSQL each message is sent by one at a time, and one killed mid-send leaves its messages
 * to another once the lease ends. Every attempt is logged in `webhook_delivery`. Before that,
 * each pass makes the messages of the `sources`' changes committed since (see
 * {@link WebhookSource}).
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
  const send = options.fetch ?? guard?.fetch ?? fetch
  const now = options.now ?? (() => new Date())
  const onError = options.onError ?? (() => {})
  const sources = options.sources ?? []

  const closing = new AbortController()
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
          const claimed = await claim(free)
          for (const message of claimed) track(message)
          // A full batch: more may be due.
          if (claimed.length === free) again = true
        }
        if (Date.now() - lastPrune > PRUNE_EVERY_MS) {
          lastPrune = Date.now()
          await prune()
        }
      } catch (error) {
        onError(error)
        return
      }
    } while (again && (running || untilIdle))
  }

  function track(message: Claimed): void {
    const key = message.subscriptionId
    perSubscriptionInFlight.set(key, (perSubscriptionInFlight.get(key) ?? 0) + 1)
    const attempt = deliver(message)
      .catch(onError)
      .finally(() => {
        inFlight.delete(attempt)
        const left = (perSubscriptionInFlight.get(key) ?? 1) - 1
        if (left > 0) perSubscriptionInFlight.set(key, left)
        else perSubscriptionInFlight.delete(key)
        wake()
      })
    inFlight.add(attempt)
  }

  /**
   * Leases up to `limit` due messages, at most `perSubscription` in flight per subscription.
   * The candidates are picked without locks (the window function cannot lock), then locked with
   * `SKIP LOCKED` and checked again, so a row another sender just leased is left to it.
   */
  async function claim(limit: number): Promise<Claimed[]> {
    const at = now()
    const lease = randomUUID()
    const busy = [...perSubscriptionInFlight.keys()]
    const busyCounts = busy.map((k) => perSubscriptionInFlight.get(k) ?? 0)
    const dueAt = sql`m.status = 'pending' and m.next_attempt_at <= ${at}
      and (m.locked_until is null or m.locked_until <= ${at})`
    const { rows } = await sql<{
      id: string
      subscription_id: string
      type: string
      payload: string
      created: Date
      attempts: number
      url: string
      secret: string
    }>`
      with ranked as (
        select m.id, m.next_attempt_at,
          row_number() over (partition by m.subscription_id order by m.next_attempt_at, m.id) as rn,
          coalesce(f.n, 0) as busy
        from webhook_message m
        left join unnest(${busy}::text[], ${busyCounts}::int[]) as f(sub, n)
          on f.sub = m.subscription_id
        where ${dueAt}
      ),
      candidates as (
        select id from ranked where rn + busy <= ${perSubscription}
        order by next_attempt_at, id limit ${limit}
      ),
      due as (
        select m.id from webhook_message m join candidates c on c.id = m.id
        where ${dueAt}
        for update of m skip locked
      )
      update webhook_message m
      set lease = ${lease}, locked_until = ${new Date(at.getTime() + leaseMs)}
      from due, webhook_subscription s
      where m.id = due.id and s.id = m.subscription_id
      returning m.id, m.subscription_id, m.type, m.payload::text as payload, m.created,
        m.attempts, s.url, s.secret`.execute(db)
    return rows.map((r) => ({
      id: r.id,
      subscriptionId: r.subscription_id,
      type: r.type,
      payloadJson: r.payload,
      created: new Date(r.created),
      attempts: r.attempts,
      url: r.url,
      secret: r.secret,
      lease,
    }))
  }

  /** One attempt: check the target, POST, record the outcome under the message's lease. */
  async function deliver(message: Claimed): Promise<void> {
    const attemptedAt = now()
    const started = performance.now()
    // A timer we hold, not `AbortSignal.timeout`: a timeout signal only `AbortSignal.any`
    // refers to may be garbage-collected before it fires (Node 20), and the attempt then waits
    // for an answer that never comes, holding its slot (seen under CI load).
    const timeout = new AbortController()
    const timer = setTimeout(() => timeout.abort(), timeoutMs)
    const signal = AbortSignal.any([closing.signal, timeout.signal])
    let status: number | null = null
    let error: string | null = null
    try {
      const response = await untilAborted(
        (async () => {
          const url = new URL(message.url)
          // Again at every send: the name may resolve elsewhere since the subscription.
          await checkWebhookTarget(url, {
            allowPrivate: options.allowPrivate ?? false,
            lookup: options.lookup,
          })
          const { body, headers } = webhookRequest(message, now())
          // No redirects: a 3xx is an answer (not 2xx), and never a way around the address check.
          return send(url, { method: 'POST', headers, body, signal, redirect: 'manual' })
        })(),
        signal,
      )
      status = response.status
      await response.body?.cancel().catch(() => {})
    } catch (cause) {
      error = closing.signal.aborted
        ? 'sender closed before an answer'
        : signal.aborted
          ? `no answer within ${timeoutMs} ms`
          : describe(cause)
    } finally {
      clearTimeout(timer)
    }
    const durationMs = Math.round(performance.now() - started)
    const delivered = status !== null && status >= 200 && status < 300
    if (status !== null && !delivered) error = `HTTP ${status}`
    // Cut short by shutdown, not failed by the receiver: no attempt is counted.
    const interrupted = status === null && closing.signal.aborted

    await db.transaction().execute(async (trx) => {
      // The message may be gone (its subscription deleted meanwhile): log only if it is not.
      await sql`
        insert into webhook_delivery
          (subscription_id, message_id, attempted_at, status, error, duration_ms)
        select ${message.subscriptionId}, ${message.id}, ${attemptedAt}, ${status}, ${error},
          ${durationMs}
        where exists (select 1 from webhook_message where id = ${message.id})`.execute(trx)
      const update = trx
        .updateTable('webhook_message')
        .where('id', '=', message.id)
        // Only while the lease is still ours: past it, another sender owns the message.
        .where('lease', '=', message.lease)
      if (interrupted) {
        // Free it for the next sender now rather than after the lease.
        await update.set({ lease: null, locked_until: null }).execute()
        return
      }
      const attempts = message.attempts + 1
      const retryAt = delivered ? undefined : nextAttemptAt(attempts, attemptedAt, retryDelaysMs)
      await update
        .set({
          attempts,
          lease: null,
          locked_until: null,
          ...(delivered
            ? { status: 'delivered', finished_at: attemptedAt }
            : retryAt
              ? { next_attempt_at: retryAt }
              : { status: 'failed', finished_at: attemptedAt }),
        })
        .execute()
    })
  }

  /** Drops finished messages older than the retention (their attempts go with them). */
  async function prune(): Promise<void> {
    await db
      .deleteFrom('webhook_message')
      .where('status', '<>', 'pending')
      .where('finished_at', '<', new Date(now().getTime() - retentionMs))
      .execute()
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
      await Promise.all([...inFlight].filter((attempt) => !started.has(attempt)))
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
