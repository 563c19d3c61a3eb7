export {
  CAL_BASE,
  CAL_EXPOSED_HEADERS,
  type CalApiOptions,
  createCalApi,
} from './cal/index.js'
export { ifNoneMatchHits } from './conditional-get.js'
export {
  createHandler,
  type Handler,
  type HandlerOptions,
  type RequestLogEntry,
} from './create-handler.js'
export { type ErrorStyle, errorResponse } from './error-response.js'
export { type ErrorDetail, HttpError, type HttpErrorOptions } from './http-error.js'
export { JSON_CONTENT_TYPE, jsonResponse } from './json-response.js'
export {
  createKcoreApi,
  KCORE_BASE,
  type KcoreApiOptions,
  SHELL_CONTENT_TYPES,
  type ShellFormat,
  shellListStream,
} from './kcore/index.js'
export { openApiDocument } from './openapi.js'
export { DEFAULT_PUBLIC_URL, parsePublicUrl } from './public-url.js'
export { MAX_BODY_BYTES, readJsonBody } from './read-json-body.js'
export type { Api, CacheKey, InputIssue, InputPart, Method, Route, RouteInput } from './route.js'
export { route } from './route.js'
export {
  type CalWebhookSourceOptions,
  calWebhookErrors,
  calWebhookSource,
  kcoreWebhookErrors,
  WEBHOOK_EVENTS,
  type WebhookHttpErrors,
  type WebhookRoutesOptions,
  webhookRoutes,
} from './webhooks/index.js'
