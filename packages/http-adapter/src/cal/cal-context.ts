import type { CalReader, CalStore } from '@cal/store'
import type { RevisionMemo } from '@kcore/db'
import { routeReading } from '../route.js'
import { unauthorized } from './cal-error.js'
import { type RenderContext, renderContext } from './render-context.js'
import type { Caller, TokenAuth } from './token-auth.js'

/** What every calendar route shares: the store, the token check, the zone and the clock. */
export interface CalContext {
  store: CalStore
  auth: TokenAuth
  /** Service time zone (IANA or `UTC±H[:MM]`). */
  timezone: string
  now: () => Date
  /** Rendered list answers, kept by the data revision they were read at. */
  memo: RevisionMemo
}

/** `route()` for calendar reads: their handlers get the request's {@link CalReader}. */
export const calRoute = routeReading<CalReader>()

/** Who is calling; an unknown token on a read counts as anonymous. */
export const callerOf = (ctx: CalContext, request: Request): Caller => ctx.auth.identify(request)

/** Throws 401 (`rest_not_logged_in` / `rest_invalid_token`) unless the caller holds a token. */
export function requireToken(ctx: CalContext, request: Request): void {
  const caller = ctx.auth.identify(request)
  if (!caller.authenticated) throw unauthorized(caller.reason)
}

/** The render context of a request. */
export const renderFor = (ctx: CalContext, url: URL, privileged: boolean): RenderContext =>
  renderContext(url, ctx.timezone, privileged)
