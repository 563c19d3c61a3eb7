/** Options of {@link createResponseCache}. */
export interface ResponseCacheOptions {
  /** Upper bound of the cached bodies' total length (bytes of JSON). */
  maxSize: number
  /** How often (ms) the data stamp is re-read to notice changes made by other processes. */
  revalidateMs: number
  /** A cheap fingerprint of the stored data; the cache is cleared when it changes. */
  stamp: () => Promise<string>
  /** Monotonic milliseconds; default `performance.now()`. */
  clock?: () => number
}

/**
 * Serialized answers of read endpoints, reused while the stored data stays the same. Entries
 * are dropped least recently used first past `maxSize`; everything is dropped by {@link clear}
 * (a sync ran here) or when the data stamp changes (another process stored something; noticed
 * within `revalidateMs`). Concurrent misses of one key share one computation, and a
 * computation that started before a clear is never stored.
 */
export interface ResponseCache<Body extends { readonly length: number } = Uint8Array<ArrayBuffer>> {
  get(key: string, compute: () => Promise<Body>): Promise<Body>
  clear(): void
}

/** A {@link ResponseCache}. */
export function createResponseCache<
  Body extends { readonly length: number } = Uint8Array<ArrayBuffer>,
>(options: ResponseCacheOptions): ResponseCache<Body> {
  const clock = options.clock ?? (() => performance.now())
  const entries = new Map<string, Body>()
  const pending = new Map<string, Promise<Body>>()
  let size = 0
  let generation = 0
  let stamp: string | undefined
  let checkedAt = Number.NEGATIVE_INFINITY
  let checking: Promise<void> | undefined

  function clear() {
    entries.clear()
    pending.clear()
    size = 0
    generation++
  }

  function revalidate(): Promise<void> | undefined {
    if (clock() - checkedAt < options.revalidateMs) return undefined
    checking ??= options
      .stamp()
      .then((next) => {
        if (next !== stamp) {
          if (stamp !== undefined) clear()
          stamp = next
        }
        checkedAt = clock()
      })
      .finally(() => {
        checking = undefined
      })
    return checking
  }

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
    async get(key, compute) {
      const check = revalidate()
      if (check) await check
      const hit = entries.get(key)
      if (hit !== undefined) {
        entries.delete(key)
        entries.set(key, hit)
        return hit
      }
      const shared = pending.get(key)
      if (shared) return shared
      const started = generation
      const computing = compute().then((value) => {
        if (pending.get(key) === computing) pending.delete(key)
        if (generation === started && value.length <= options.maxSize) {
          store(key, value)
        }
        return value
      })
      computing.catch(() => {
        if (pending.get(key) === computing) pending.delete(key)
      })
      pending.set(key, computing)
      return computing
    },
    clear,
  }
}
