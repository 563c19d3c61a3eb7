import { type Database, openPostgresDatabase } from '@kcore/db'
import { sql } from 'kysely'

/** A fresh PostgreSQL database for one suite: its URL for child processes, a handle for checks. */
export interface ThrowawayPostgres {
  readonly name: string
  /** Connection URL of the new database (what the `kcore` processes get). */
  readonly url: string
  /**
   * One connection to it, for the suite's own queries. A single connection, so a session
   * advisory lock taken through it is released through the same session.
   */
  readonly database: Database
  /** Closes the handle and drops the database, terminating whatever is still connected. */
  drop(): Promise<void>
}

/**
 * Creates an empty database next to `baseUrl` (the `DATABASE_URL` CI sets), like
 * `@kcore/db/testing`, but hands out its URL because the code under test runs in other
 * processes.
 */
export async function createThrowawayPostgres(baseUrl: string): Promise<ThrowawayPostgres> {
  const name = `kcore_cli_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  await asAdmin(baseUrl, (admin) => sql`create database ${sql.id(name)}`.execute(admin.db))
  const url = new URL(baseUrl)
  url.pathname = `/${name}`
  const database = openPostgresDatabase(url.toString(), { maxConnections: 1 })
  return {
    name,
    url: url.toString(),
    database,
    async drop() {
      await database.close()
      await asAdmin(baseUrl, (admin) =>
        sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin.db),
      )
    },
  }
}

async function asAdmin(baseUrl: string, fn: (admin: Database) => Promise<unknown>): Promise<void> {
  const admin = openPostgresDatabase(baseUrl, { maxConnections: 1 })
  try {
    await fn(admin)
  } finally {
    await admin.close()
  }
}
