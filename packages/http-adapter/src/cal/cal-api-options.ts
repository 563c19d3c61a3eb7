import type { CalStore } from '@cal/store'
import type { WebhookSubscriptions } from '@kcore/webhooks'

/** Where the calendar API is mounted. */
export const CAL_BASE = '/cal/events/v1'

/** The namespace as WordPress clients name it. */
export const CAL_NAMESPACE = CAL_BASE.slice(1)

/**
 * Headers of list answers a browser client may read across origins (with `Location` of a
 * create): the totals, under both the calendar's and The Events Calendar's names, and the
 * changes feed's token.
 */
export const CAL_EXPOSED_HEADERS = [
  'X-CAL-Total',
  'X-CAL-TotalPages',
  'X-TEC-Total',
  'X-TEC-TotalPages',
  'X-CAL-Sync-Token',
  'Location',
]

/** Options of {@link createCalApi}. Nothing here is read from the environment. */
export interface CalApiOptions {
  /** The calendar store (migrated). */
  store: CalStore
  /** Bearer tokens allowed to write (kept only as SHA-256 hashes); empty → every write is 401. */
  tokens: string[]
  /** Service time zone: IANA name or `UTC±H[:MM]`; default `UTC`. */
  timezone?: string
  /**
   * Serves `/cal/events/v1/webhooks` over these subscriptions (`webhookSubscriptions` of
   * `@kcore/webhooks`, with {@link WEBHOOK_EVENTS}) to token holders; omitted → not served.
   * The messages are made by a webhook sender following the store (`calWebhookSource`).
   */
  webhooks?: WebhookSubscriptions
  /** The clock (tests pin it); default `() => new Date()`. */
  now?: () => Date
  /**
   * Bound in bytes of the API's memo of rendered list pages, kept by the store's data revision
   * (default 32 MiB); `false` keeps nothing.
   */
  memoBytes?: number | false
}
