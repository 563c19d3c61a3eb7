import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely'
import type { PgliteEngine } from './pglite-engine.js'
import type { PgliteSupervisor } from './pglite-supervisor.js'

/**
 * Kysely over a supervised PGlite ({@link PgliteSupervisor}): PostgreSQL's adapter, compiler and
 * introspector, and a driver whose one connection at a time runs on the engine running when it
 * first queries. A connection whose engine failed under it (its transaction went with it) fails
 * every later statement and has nothing to roll back, so a transaction never continues on the
 * engine that replaced it.
 */
export class PgliteDialect implements Dialect {
  constructor(private readonly supervisor: PgliteSupervisor) {}
  createAdapter() {
    return new PostgresAdapter()
  }
  createDriver(): Driver {
    return new PgliteDriver(this.supervisor)
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler()
  }
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db)
  }
}

class PgliteDriver implements Driver {
  /** Settles when the connection handed out last is released: PGlite has one session. */
  #released: Promise<void> = Promise.resolve()

  constructor(private readonly supervisor: PgliteSupervisor) {}

  async init() {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#released
    let release!: () => void
    this.#released = new Promise((resolve) => {
      release = resolve
    })
    await previous
    return new PgliteConnection(this.supervisor, release)
  }

  async releaseConnection(connection: DatabaseConnection) {
    ;(connection as PgliteConnection).release()
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    const level = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : ''
    await (connection as PgliteConnection).run(`start transaction${level}`)
  }

  async commitTransaction(connection: DatabaseConnection) {
    await (connection as PgliteConnection).run('commit')
  }

  async rollbackTransaction(connection: DatabaseConnection) {
    const pgliteConnection = connection as PgliteConnection
    // The transaction ended with the engine that failed under it.
    if (pgliteConnection.orphaned) return
    await pgliteConnection.run('rollback')
  }

  async destroy() {
    await this.supervisor.close()
  }
}

class PgliteConnection implements DatabaseConnection {
  #engine: PgliteEngine | undefined

  constructor(
    private readonly supervisor: PgliteSupervisor,
    readonly release: () => void,
  ) {}

  /** True when the engine this connection ran on has failed since. */
  get orphaned(): boolean {
    return this.#engine !== undefined && !this.supervisor.isRunning(this.#engine)
  }

  async run<R>(text: string, parameters: readonly unknown[] = []): Promise<QueryResult<R>> {
    this.#engine ??= await this.supervisor.instance()
    const result = await this.supervisor.query<R>(this.#engine, text, parameters)
    return result.affectedRows
      ? { numAffectedRows: BigInt(result.affectedRows), rows: result.rows }
      : { rows: result.rows }
  }

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    return this.run(compiledQuery.sql, compiledQuery.parameters)
  }

  // PGlite answers whole results; streaming hands them out in chunks.
  async *streamQuery<R>(
    compiledQuery: CompiledQuery,
    chunkSize = 100,
  ): AsyncIterableIterator<QueryResult<R>> {
    const { rows } = await this.executeQuery<R>(compiledQuery)
    for (let i = 0; i < rows.length; i += chunkSize) yield { rows: rows.slice(i, i + chunkSize) }
  }
}
