import { randomUUID } from 'node:crypto'
import { type Kysely, sql } from 'kysely'
import type { OutboxMessage } from './webhook-request.js'

/** A message leased to this sender: what one attempt needs, and the lease it holds it by. */
export interface ClaimedMessage extends OutboxMessage {
  subscriptionId: string
  url: string
  attempts: number
  /** This claim's id: the outcome is recorded only while the row still carries it. */
  lease: string
}

export interface ClaimRequest {
  /** Messages to lease at most. */
  limit: number
  /** Requests this sender may have in flight per subscription. */
  perSubscription: number
  /** Requests this sender has in flight now, by subscription id. */
  busy: ReadonlyMap<string, number>
  /** The sender's clock now: what is due, and where the lease starts. */
  at: Date
  /** How long the lease holds. */
  leaseMs: number
}

/**
 * Leases up to `limit` due messages, at most `perSubscription` in flight per subscription
 * (counting `busy`), with `FOR UPDATE SKIP LOCKED` and `locked_until`: with several senders on
 * one PostgreSQL each message is sent by one at a time, and one killed mid-send leaves its
 * messages to another once the lease ends. The candidates are picked without locks (the window
 * function cannot lock), then locked with `SKIP LOCKED` and checked again, so a row another
 * sender just leased is left to it.
 */
export async function claimDueMessages<DB>(
  db: Kysely<DB>,
  request: ClaimRequest,
): Promise<ClaimedMessage[]> {
  const { at, limit, perSubscription, leaseMs } = request
  const lease = randomUUID()
  const busy = [...request.busy.keys()]
  const busyCounts = busy.map((k) => request.busy.get(k) ?? 0)
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
