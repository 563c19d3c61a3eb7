/** Options of {@link createRevisionMemo}. */
export interface RevisionMemoOptions {
  /** Upper bound of the kept values' total `byteLength`. */
  maxBytes: number
}

/** A value a {@link RevisionMemo} keeps: anything that knows its size in bytes. */
export interface Sized {
  readonly byteLength: number
}

/**
 * Answers computed from a store's data at one revision, kept for the next reader at the same
 * revision. A revision is the store's committed data counter (any process moves it in the
 * transaction that changes the data), so an entry filed under revision `r` is right for every
 * reader at `r`. The first reader at a newer revision drops every older entry: nothing runs
 * between reads (no timer, no polling, no clear hook). Least recently used entries go first past
 * `maxBytes`. Concurrent misses of one key share one computation; a reader at a revision older
 * than the newest seen computes its answer and keeps nothing.
 */
export interface RevisionMemo {
  /** The value of `key` at `revision` (a decimal counter), computing it on a miss. */
  get<T extends Sized>(revision: string, key: string, compute: () => Promise<T>): Promise<T>
}

/** A {@link RevisionMemo}. */
export function createRevisionMemo(options: RevisionMemoOptions): RevisionMemo {
  const entries = new Map<string, Sized>()
  const pending = new Map<string, Promise<Sized>>()
  let size = 0
  let current: bigint | undefined

  function keep(key: string, value: Sized) {
    entries.set(key, value)
    size += value.byteLength
    for (const [oldKey, oldValue] of entries) {
      if (size <= options.maxBytes) break
      entries.delete(oldKey)
      size -= oldValue.byteLength
    }
  }

  return {
    async get<T extends Sized>(revision: string, key: string, compute: () => Promise<T>) {
      const asked = BigInt(revision)
      if (current === undefined || asked > current) {
        entries.clear()
        pending.clear()
        size = 0
        current = asked
      }
      if (asked < current) return compute()
      const hit = entries.get(key)
      if (hit !== undefined) {
        // Map order is the LRU order: a hit moves to the end.
        entries.delete(key)
        entries.set(key, hit)
        return hit as T
      }
      const shared = pending.get(key)
      if (shared) return shared as Promise<T>
      const computing = compute().then((value) => {
        if (pending.get(key) === computing) pending.delete(key)
        if (current === asked && value.byteLength <= options.maxBytes) keep(key, value)
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
