import type { CacheKey } from '../route.js'
import type { KcoreContext } from './kcore-context.js'

/**
 * The conditional-GET key of a k-core read: the data revision (every ingest, in any process,
 * changes it in the transaction that changes the data) and the route's validated input, whose
 * defaults are filled in, so equal answers share a key. The core hashes it into the strong
 * `ETag` and sends `Cache-Control: no-cache`: a re-ingest changes every tag, nothing is kept
 * blind.
 */
export function revisionKey(ctx: KcoreContext, name: string) {
  return async (input: { params?: unknown; query?: unknown }): Promise<CacheKey> => {
    const revision = await ctx.store.revision()
    const parts = [
      name,
      revision,
      JSON.stringify(input.params ?? null),
      JSON.stringify(input.query ?? null),
    ]
    return { key: parts.join('|'), revision }
  }
}
