/** Options of {@link createResponseCache}. */
export interface ResponseCacheOptions {
  /** Upper bound of the cached bodies' total length (bytes of JSON). */
  maxSize: number
}

/**
 * Serialized answers of read endpoints, filed under the data revision the request read (in
 * any process: a revision is the store's, committed with the data). The first request that
 * brings a newer revision drops every entry of the older ones, so no timer, stamp polling or
 * clear hook is needed and nothing runs between requests. Entries are dropped least recently
 * used first past `maxSize`. Concurrent misses of one key share one computation; a computation
 * at a revision older than the newest seen is served but never stored.
 */
export interface ResponseCache<Body extends { readonly length: number } = Uint8Array<ArrayBuffer>> {
  /** The answer for `key` at `revision` (a store revision: a decimal counter). */
  get(revision: string, key: string, compute: () => Promise<Body>): Promise<Body>
}

/** A {@link ResponseCache}. */
export function createResponseCache<
  Body extends { readonly length: number } = Uint8Array<ArrayBuffer>,
>(options: ResponseCacheOptions): ResponseCache<Body> {
  const entries = new Map<string, Body>()
  const pending = new Map<string, Promise<Body>>()
  let size = 0
  let current: bigint | undefined

  function store(key: string, value: Body) {
    entries.set(key, value)
    size += value.length
    for (const [oldKey, oldValue] of entries) {
      if (size <= options.maxSize) break
      entries.delete(oldKey)
      size -= oldValue.length
    }
  }

  return {
    async get(revision, key, compute) {
      const asked = BigInt(revision)
      if (current === undefined || asked > current) {
        entries.clear()
        pending.clear()
        size = 0
        current = asked
      }
      // A request that read an older revision than another already brought: answer it, keep nothing.
      if (asked < current) return compute()
      const hit = entries.get(key)
      if (hit !== undefined) {
        entries.delete(key)
        entries.set(key, hit)
        return hit
      }
      const shared = pending.get(key)
      if (shared) return shared
      const computing = compute().then((value) => {
        if (pending.get(key) === computing) pending.delete(key)
        if (current === asked && value.length <= options.maxSize) store(key, value)
        return value
      })
      computing.catch(() => {
        if (pending.get(key) === computing) pending.delete(key)
      })
      pending.set(key, computing)
      return computing
    },
  }
}
