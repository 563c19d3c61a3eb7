import { CAL_BASE } from './cal-api-options.js'

/** What renderers need from the request and the configuration. */
export interface RenderContext {
  /** `https://host` of the request. */
  origin: string
  /** `host[:port]` of the request (for `global_id`). */
  host: string
  /** Absolute URL of the API base, `https://host/cal/events/v1`. */
  restBase: string
  /** The service time zone (`date`/`modified`). */
  timezone: string
  /** The caller holds a valid token (sees password-protected text in lists). */
  privileged: boolean
}

/** A render context for one request. */
export function renderContext(url: URL, timezone: string, privileged: boolean): RenderContext {
  return {
    origin: url.origin,
    host: url.host,
    restBase: `${url.origin}${CAL_BASE}`,
    timezone,
    privileged,
  }
}
