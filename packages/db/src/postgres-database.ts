import { Kysely } from 'kysely'
import { PostgresJSDialect } from 'kysely-postgres-js'
import postgres, { type Sql } from 'postgres'
import { tryWithSessionLock } from './advisory-lock.js'
import type { Database, NoTables } from './database.js'
import { DEFAULT_CONNECT_TIMEOUT_MS } from './database-connect-error.js'
import { drainingPool } from './draining-pool.js'
import { DEFAULT_PREPARED_STATEMENTS, preparingSql, statementCap } from './prepared-statements.js'

const DATE_OID = 1082
const INT8_OID = 20

/** Options of {@link openPostgresDatabase}. */
export interface PostgresOptions {
  /** Pool size (default 10). */
  maxConnections?: number | undefined
  /** How long each connection attempt may take, in ms (default 10 s). */
  connectTimeoutMs?: number | undefined
  /**
   * Distinct query texts run as named prepared statements, planned once per connection
   * (default 1,000; later texts run unnamed, planned on every execution); `0`: none, for a
   * pooler in transaction mode that cannot keep them.
   */
  preparedStatements?: number | undefined
}

/**
 * Opens a pooled PostgreSQL connection through postgres.js and kysely-postgres-js. Connections
 * are made lazily; each gives up after `connectTimeoutMs` (default 10 s) until the server is ready.
 */
export function openPostgresDatabase(url: string, options: PostgresOptions = {}): Database {
  const {
    maxConnections = 10,
    connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS,
    preparedStatements = DEFAULT_PREPARED_STATEMENTS,
  } = options
  const cap = statementCap(preparedStatements)
  const sql = postgres(url, {
    max: maxConnections,
    // Its own tagged queries too (`ping`): none prepared when the cap says none.
    prepare: cap > 0,
    // seconds; covers TCP connect, TLS and the startup handshake (a host that accepts and never answers)
    connect_timeout: connectTimeoutMs / 1000,
    onnotice: () => {},
    // Every statement of the stores is short. PostgreSQL's JIT is chosen by cost, and the
    // estimates of small or never-analyzed tables (a one-row revision table is taken for 2,200
    // rows) pass its threshold: the first such statement of a connection then spent ~60 ms
    // compiling what runs in 3 ms (the trend model's listing after a start).
    connection: { jit: 'off' },
    // Same value shapes as PGlite: dates stay 'YYYY-MM-DD' strings (no time-zone shifts),
    // counts and other int8 values come back as numbers.
    types: {
      // A new key, so the built-in handler keeps parsing timestamps into Date objects.
      dateOnly: {
        to: DATE_OID,
        from: [DATE_OID],
        serialize: (v: string) => v,
        parse: (v: string) => v,
      },
      int8: {
        to: INT8_OID,
        from: [INT8_OID],
        serialize: (v: number | bigint) => String(v),
        parse: (v: string) => Number(v),
      },
    },
  })
  const queries = drainingPool(preparingSql(sql, cap))
  let closed = false
  // A factory (not `sql` itself): the dialect then reserves its connections through `queries`.
  // Kysely destroys only a driver it has used, and makes one on the next query: a database
  // closed before its first query must refuse that query, not connect again.
  const db = new Kysely<NoTables>({
    dialect: new PostgresJSDialect({
      postgres: async () => {
        if (closed) throw new Error('the database is closed')
        return queries as unknown as Sql
      },
    }),
  })

  return {
    db,
    dialect: 'postgres',
    tryWithLock: (name, fn) => tryWithSessionLock(db, name, fn),
    async ping() {
      if (closed) return false
      try {
        await sql`select 1`
        return true
      } catch {
        return false
      }
    },
    async close() {
      closed = true
      await db.destroy()
      // What `ping` opened, when no query ever went through Kysely.
      await sql.end()
    },
  }
}
