/** The calls kysely-postgres-js makes on a reserved postgres.js connection. */
export interface ReservedQueries {
  unsafe(text: string, parameters?: unknown[], options?: { prepare?: boolean }): Promise<unknown>
  release(): void
}

/**
 * Kysely's start of a read-only transaction (`setAccessMode('read only')`), at an isolation
 * level whose commit cannot fail a read: SERIALIZABLE is left out (a read-only transaction can
 * lose a serialization check there, and its caller must hear of it).
 */
const READ_ONLY_START =
  /^start transaction( isolation level (read committed|repeatable read))? read only$/

/** What kysely-postgres-js reads of a result: `command`, `count`, `values()`. */
const emptyResult = (command: string) => Object.assign([], { command, count: null })

/**
 * `reserved` with its read-only transactions two round trips shorter. Their start is not
 * waited for: it goes out with the transaction's first query (postgres.js pipelines the
 * queries of one connection), and that query's answer waits for the start's, so a start that
 * fails still fails the transaction. Their commit is sent and not waited for either: the
 * reads are all answered by then, a read-only commit has nothing to keep, and the connection
 * runs the commit before whatever is sent on it next. Every other transaction is waited for
 * statement by statement, as before.
 *
 * Every list of the stores reads in such a transaction (a snapshot of several statements), so
 * this takes two of its round trips off every list on PostgreSQL.
 */
export function pipelineReadOnly(reserved: ReservedQueries): ReservedQueries {
  /** A read-only start sent and not yet answered to anyone. */
  let started: Promise<unknown> | undefined
  let readOnly = false
  const send = (text: string, parameters?: unknown[], options?: { prepare?: boolean }) => {
    const query = reserved.unsafe(text, parameters, options) as Promise<unknown> & {
      cursor?: (...args: unknown[]) => unknown
    }
    const start = started
    started = undefined
    if (!start) return query
    // The start's error first (it is answered first: the query then ran outside the
    // transaction). Lazily, as postgres.js runs a query on `then` and a cursor on `cursor`
    // (a cursor's start error is the cursor query's own, which follows it on the connection).
    return {
      // biome-ignore lint/suspicious/noThenProperty: a thenable, as postgres.js's queries are
      then: (ok?: (value: unknown) => unknown, ko?: (reason: unknown) => unknown) =>
        Promise.all([start, query])
          .then(([, result]) => result)
          .then(ok, ko),
      cursor: (...args: unknown[]) => query.cursor?.(...args),
    } as unknown as Promise<unknown>
  }
  return {
    unsafe(text, parameters, options) {
      if (READ_ONLY_START.test(text)) {
        const start = reserved.unsafe(text, parameters, options)
        // postgres.js sends a query when it is awaited: this sends it now.
        ;(start as { execute?: () => void }).execute?.()
        start.catch(() => {})
        started = start
        readOnly = true
        return Promise.resolve(emptyResult('BEGIN'))
      }
      if (readOnly && text === 'commit') {
        readOnly = false
        const start = started
        started = undefined
        const commit = reserved.unsafe(text, parameters, options)
        ;(commit as { execute?: () => void }).execute?.()
        // A read-only commit that fails (the connection was lost) loses nothing read.
        commit.catch(() => {})
        // A start that failed still fails a transaction that read nothing.
        return (start ?? Promise.resolve()).then(() => emptyResult('COMMIT'))
      }
      if (text === 'rollback') readOnly = false
      return send(text, parameters, options)
    },
    release: () => reserved.release(),
  }
}
