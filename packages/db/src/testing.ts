import postgres from 'postgres'
import type { Database } from './database.js'
import { openPgliteDatabase } from './pglite-database.js'
import { openPostgresDatabase } from './postgres-database.js'

/** One database engine a test suite runs against. */
export interface TestDatabase {
  readonly name: 'pglite' | 'postgres'
  /** A fresh, empty database; closing it also drops it. */
  open(): Promise<Database>
}

/**
 * The engines to test against: in-memory PGlite always, and real PostgreSQL when
 * `DATABASE_URL` is set. Each `open()` on PostgreSQL creates a throwaway database, so test
 * files running in parallel never see each other's tables.
 *
 * @example
 * describe.each(testDatabases())('store on $name', ({ open }) => { ... })
 */
export function testDatabases(
  env: Record<string, string | undefined> = process.env,
): TestDatabase[] {
  const list: TestDatabase[] = [{ name: 'pglite', open: () => openPgliteDatabase() }]
  const url = env.DATABASE_URL
  if (url) list.push({ name: 'postgres', open: () => openThrowawayPostgres(url) })
  return list
}

async function openThrowawayPostgres(baseUrl: string): Promise<Database> {
  const name = `kcore_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`create database "${name}"`)
  } finally {
    await admin.end()
  }
  const url = new URL(baseUrl)
  url.pathname = `/${name}`
  const database = openPostgresDatabase(url.toString())
  return {
    ...database,
    async close() {
      await database.close()
      const dropper = postgres(baseUrl, { max: 1, onnotice: () => {} })
      try {
        await dropper.unsafe(`drop database if exists "${name}" with (force)`)
      } finally {
        await dropper.end()
      }
    },
  }
}
