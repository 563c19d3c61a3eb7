import { sql } from 'kysely'
import type { Database } from './database.js'

/** Thrown by `openDatabase({ url })` when PostgreSQL cannot be reached or refuses the login. */
export class DatabaseConnectError extends Error {
  override readonly name = 'DatabaseConnectError'
}

/** The connect timeout when none is configured (spec: 10 s). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000

/**
 * Connects once with `select 1`, so an unreachable host fails at open, within the connect
 * timeout, as one line naming the server (never the password), instead of at the first request.
 *
 * @throws {DatabaseConnectError} after closing `database`.
 */
export async function checkConnection(
  database: Database,
  url: string,
  connectTimeoutMs: number,
): Promise<void> {
  try {
    await sql`select 1`.execute(database.db)
  } catch (error) {
    await database.close().catch(() => {})
    const code = (error as { code?: string }).code
    const reason =
      code === 'CONNECT_TIMEOUT'
        ? `no answer within ${connectTimeoutMs} ms`
        : error instanceof Error
          ? error.message.split('\n')[0]
          : String(error)
    throw new DatabaseConnectError(`cannot connect to the database at ${where(url)}: ${reason}`, {
      cause: error,
    })
  }
}

/** `host:port/name` of a connection URL, without user or password. */
function where(url: string): string {
  try {
    const u = new URL(url)
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`
  } catch {
    return 'the configured URL'
  }
}
