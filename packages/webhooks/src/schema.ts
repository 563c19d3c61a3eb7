import type { ColumnType, Generated } from 'kysely'

/** The two APIs that send webhooks; each has its own subscriptions. */
export type WebhookApi = 'cal' | 'kcore'

/** Where one message stands: waiting for a (next) attempt, accepted by its receiver, given up. */
export type WebhookMessageStatus = 'pending' | 'delivered' | 'failed'

/** A receiver URL and the event types it asked for. */
export interface WebhookSubscriptionTable {
  id: string
  api: WebhookApi
  url: string
  events: string[]
  /** `whsec_…`: signs every message to this URL; shown once, at subscription. */
  secret: string
  created: ColumnType<Date, Date | undefined, never>
}

/**
 * The outbox: one row per (subscription, event), written in the transaction that made the
 * change, or (for a {@link WebhookCursorTable} source) in the sender's transaction that moves
 * the source's cursor past the committed change: either way once, and never for a rollback.
 */
export interface WebhookMessageTable {
  /** The `webhook-id` header: the same on every attempt, so receivers can drop duplicates. */
  id: string
  subscription_id: string
  api: WebhookApi
  type: string
  /** The body's `data`. `json`, not `jsonb`: the record's key order survives as the API wrote it. */
  payload: ColumnType<unknown, string, never>
  /** When the change happened: the body's `timestamp`. */
  created: ColumnType<Date, Date | undefined, never>
  next_attempt_at: Date
  attempts: Generated<number>
  status: Generated<WebhookMessageStatus>
  /** The claim of the sender sending it now, and until when that claim holds. */
  lease: string | null
  locked_until: Date | null
  /** When it was delivered or given up: old finished messages are pruned from then. */
  finished_at: Date | null
}

/** Every attempt, for `GET …/webhooks/{id}/deliveries`. */
export interface WebhookDeliveryTable {
  id: Generated<number>
  subscription_id: string
  message_id: string
  attempted_at: Date
  /** The receiver's HTTP status, or null when no answer came (see `error`). */
  status: number | null
  error: string | null
  duration_ms: number
}

/** How far each webhook source's committed changes have been made into messages. */
export interface WebhookCursorTable {
  source: string
  position: ColumnType<string, string | number, string | number>
}

/** The tables of `@kcore/webhooks`, for `database.db.withTables<WebhookTables>()`. */
// A type, not an interface: Kysely's `withTables` needs the index signature a type alias has.
export type WebhookTables = {
  webhook_subscription: WebhookSubscriptionTable
  webhook_message: WebhookMessageTable
  webhook_delivery: WebhookDeliveryTable
  webhook_cursor: WebhookCursorTable
}
