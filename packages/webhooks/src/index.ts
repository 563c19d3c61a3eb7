/**
 * Webhooks for both APIs, per the Standard Webhooks specification: subscriptions, an outbox
 * (messages written in the caller's transaction, or made after the commit from a store's
 * committed changes by a {@link WebhookSource}), and a sender that runs outside request
 * handling. Run {@link migrateWebhooks} once at start, then:
 *
 * @example
 * await migrateWebhooks(database.db)
 * const subscriptions = webhookSubscriptions(database, { events: { cal: ['event.created'] } })
 * const sender = createWebhookSender(database)
 * sender.start()
 * await database.db.transaction().execute(async (trx) => {
 *   // … the change …
 *   await enqueueWebhook(trx, 'cal', 'event.created', record)
 * })
 * sender.notify()
 */
export {
  enqueueWebhook,
  enqueueWebhooks,
  type WebhookEvent,
} from './enqueue-webhook.js'
export { type GuardedFetch, guardedFetch } from './guarded-fetch.js'
export { migrateWebhooks, WEBHOOK_MIGRATIONS } from './migrations.js'
export { DEFAULT_RETRY_DELAYS_MS, nextAttemptAt } from './retry-schedule.js'
export type {
  WebhookApi,
  WebhookCursorTable,
  WebhookDeliveryTable,
  WebhookMessageStatus,
  WebhookMessageTable,
  WebhookSubscriptionTable,
  WebhookTables,
} from './schema.js'
export type { WebhookSender, WebhookSenderOptions } from './sender-options.js'
export { WebhookError, type WebhookErrorCode } from './webhook-error.js'
export { type OutboxMessage, webhookRequest } from './webhook-request.js'
export { createWebhookSender } from './webhook-sender.js'
export { followSource, type SourceRead, type WebhookSource } from './webhook-source.js'
export {
  DEFAULT_MAX_SUBSCRIPTIONS,
  MAX_DELIVERIES_LIMIT,
  type NewWebhookSubscription,
  type WebhookDelivery,
  type WebhookSubscription,
  type WebhookSubscriptions,
  type WebhookSubscriptionsOptions,
  webhookSubscriptions,
} from './webhook-subscriptions.js'
export {
  checkWebhookTarget,
  isPublicAddress,
  type LookupAll,
  MAX_URL_LENGTH,
  parseWebhookUrl,
  systemLookup,
} from './webhook-target.js'
