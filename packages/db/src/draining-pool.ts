/** What kysely-postgres-js calls on its pool: `reserve` a connection, `end` them all. */
export interface ReservingPool<C extends { release(): void }> {
  reserve(): Promise<C>
  end(): Promise<void>
}

/**
 * `pool` with an `end()` that first waits for every reserved connection to be released.
 * postgres.js ends a connection that is reserved at `end()` only when it closes, and a release
 * after `end()` returns it to the pool instead: a database closed while a request was still
 * reading (a host shutting down under load) waited for ever. Connections reserved while it
 * waits are served (a request's next statement); once the pool is ending, `reserve()` fails.
 */
export function drainingPool<C extends { release(): void }>(
  pool: ReservingPool<C>,
): ReservingPool<C> {
  let held = 0
  let ending: Promise<void> | undefined
  let ended = false
  let drained: (() => void) | undefined
  return {
    async reserve() {
      if (ended) throw new Error('the database is closed')
      held++
      let connection: C
      try {
        connection = await pool.reserve()
      } catch (error) {
        if (--held === 0) drained?.()
        throw error
      }
      let released = false
      return {
        ...connection,
        release() {
          if (released) return
          released = true
          connection.release()
          if (--held === 0) drained?.()
        },
      }
    },
    end() {
      ending ??= (async () => {
        while (held > 0) await new Promise<void>((resolve) => (drained = resolve))
        ended = true
        await pool.end()
      })()
      return ending
    },
  }
}
