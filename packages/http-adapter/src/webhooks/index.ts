export { type CalWebhookSourceOptions, calWebhookSource } from './cal-webhook-source.js'
export { WEBHOOK_EVENTS } from './webhook-events.js'
export {
  calWebhookErrors,
  kcoreWebhookErrors,
  type WebhookHttpErrors,
  webhookErrorToHttp,
} from './webhook-http-errors.js'
export { type WebhookRoutesOptions, webhookRoutes } from './webhook-routes.js'
