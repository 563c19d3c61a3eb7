import { type Kysely, type Migration, sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { migrateToLatest } from './migrate.js'
import { testDatabases } from './testing.js'

/** Migrations that record each run of theirs in `ran`. */
function provider(names: string[], ran: string[]) {
  const migrations: Record<string, Migration> = {}
  for (const name of names)
    migrations[name] = {
      async up(db: Kysely<unknown>) {
        ran.push(name)
        await sql`create table ${sql.table(`t_${name}`)} (id int)`.execute(db)
      },
    }
  return {
    table: 'test_migration',
    lockTable: 'test_migration_lock',
    provider: { getMigrations: async () => migrations },
  }
}

const toError = (message: string) => new Error(`test store ${message}`)

describe.each(testDatabases())('migrateToLatest on $name', ({ open }) => {
  it('runs each migration once, a later one when it appears, and refuses an unknown one', async () => {
    const database = await open()
    try {
      const ran: string[] = []
      await migrateToLatest(database.db, provider(['a', 'b'], ran), toError)
      await migrateToLatest(database.db, provider(['a', 'b'], ran), toError)
      expect(ran).toEqual(['a', 'b'])
      await migrateToLatest(database.db, provider(['a', 'b', 'c'], ran), toError)
      expect(ran).toEqual(['a', 'b', 'c'])
      // A database migrated by newer code: the migrator's refusal, not a silent skip.
      await expect(
        migrateToLatest(database.db, provider(['a', 'b'], ran), toError),
      ).rejects.toThrow(/^test store migration .*failed/)
      expect(ran).toEqual(['a', 'b', 'c'])
    } finally {
      await database.close()
    }
  })

  it('tells an up-to-date database by reading its migration table, writing nothing', async () => {
    const database = await open()
    try {
      await migrateToLatest(database.db, provider(['a'], []), toError)
      // The migrator makes its lock table whenever it runs: gone, it shows the migrator did not.
      await sql`drop table test_migration_lock`.execute(database.db)
      await migrateToLatest(database.db, provider(['a'], []), toError)
      const { rows } = await sql<{ found: boolean }>`select
        to_regclass('test_migration_lock') is not null as found`.execute(database.db)
      expect(rows).toEqual([{ found: false }])
    } finally {
      await database.close()
    }
  })
})
