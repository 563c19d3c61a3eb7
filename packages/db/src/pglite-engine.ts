/** What one statement answers. */
export interface EngineResult<R> {
  rows: R[]
  affectedRows?: number
}

/**
 * One running PGlite engine as {@link PgliteSupervisor} drives it: PostgreSQL's single backend,
 * wherever it runs (`pglite-worker-engine.ts`: in a worker thread).
 */
export interface PgliteEngine {
  /** One statement; fails with the engine's error (its class, SQLSTATE `code` and `cause`). */
  query<R>(text: string, parameters: readonly unknown[]): Promise<EngineResult<R>>
  /**
   * Ends an engine that failed, without running SQL on it (it may never answer again): closes
   * the files it holds open (a dropped engine would keep them, and on a full disk the space of
   * files recovery removes), then stops it.
   */
  drop(): void
  /** Closes the engine cleanly (a checkpoint), then stops it. */
  close(): Promise<void>
}

/** What an engine reports on its own. */
export interface EngineEvents {
  /**
   * A `NOTIFY channel, payload` committed: called before the committing query's answer is
   * delivered, in the order the transaction sent them.
   */
  notify(channel: string, payload: string): void
  /** The engine died outside any query (its thread exited): the supervisor drops it. */
  lost(error: unknown): void
}

/** Starts an engine on the data directory; resolves once it answers queries. */
export type StartEngine = (events: EngineEvents) => Promise<PgliteEngine>

/**
 * The engine's thread ended while the engine was in use (a crash, an out-of-memory abort): what
 * ran on it is gone, like a PANICked backend.
 */
export class EngineLostError extends Error {
  override readonly name = 'EngineLostError'
}
