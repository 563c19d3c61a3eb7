import type { CacheKey, RouteInput } from '../route.js'
import { type CalContext, callerOf } from './cal-context.js'

/**
 * The conditional-GET key of a calendar read (the core adds the reader's revision): the caller's
 * class, the path and the canonical query, plus `extra` (what the answer depends on beyond those, such as a
 * default date window that moves with the clock). A caller holding a token, or a `password`
 * in the query, gets a `private` answer. The configured tokens salt the key, so a tag cannot be
 * forged from the public revision by someone who holds none.
 */
// biome-ignore lint/suspicious/noExplicitAny: fits every route's input; the key reads only request and url
type AnyInput = Omit<RouteInput<any, any, any, unknown>, 'reader'>

export function calCacheKey(ctx: CalContext, extra: (input: AnyInput) => string = () => '') {
  return (input: AnyInput): CacheKey => {
    const { request, url } = input
    const caller = callerOf(ctx, request)
    const holder = caller.authenticated || url.searchParams.has('password')
    // By name only: the sort is stable, so repeated values keep their order (it can matter).
    const query = [...url.searchParams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return {
      key: [
        'cal',
        ctx.auth.salt,
        caller.authenticated ? 'holder' : 'anonymous',
        url.pathname,
        JSON.stringify(query),
        extra(input),
      ].join('\u0000'),
      credentials: holder ? 'holder' : 'anonymous',
    }
  }
}
