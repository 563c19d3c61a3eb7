import { readFile } from 'node:fs/promises'
import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { Migrator, sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { createKcoreStore, ingestFile } from '../src/index.js'
import {
  KCORE_MIGRATION_LOCK_TABLE,
  KCORE_MIGRATION_TABLE,
  kcoreMigrationProvider,
  kcoreMigrations as migrations,
} from '../src/migrations.js'
import { FIXTURE } from './helpers.js'

/** The ids databases have recorded since these migrations were released. */
const RELEASED = [
  '0001_initial',
  '0002_revision',
  '0003_provenance',
  '0004_revision_notify',
  '0005_compact_shells',
  '0006_asn_fences',
  '0007_trend_index',
  '0008_drop_trend_index',
  '0009_as_registry',
  '0010_snapshot_links',
  '0011_revision_payload',
]

/** Tables, columns, indexes and triggers of the store, as the catalog describes them. */
async function schemaOf(db: Database['db']) {
  const columns = await sql`select table_name, column_name, data_type, is_nullable, column_default
    from information_schema.columns where table_schema = 'public' and table_name like 'kcore%'
      and table_name not like 'kcore_migration%' order by table_name, column_name`.execute(db)
  const indexes = await sql`select tablename, indexname, indexdef from pg_indexes
    where schemaname = 'public' and tablename like 'kcore%'
      and tablename not like 'kcore_migration%' order by tablename, indexname`.execute(db)
  const triggers = await sql`select event_object_table, trigger_name, action_timing,
      event_manipulation from information_schema.triggers
    where event_object_table like 'kcore%' order by 1, 2, 4`.execute(db)
  return { columns: columns.rows, indexes: indexes.rows, triggers: triggers.rows }
}

/** Kysely's migrator over this package's migrations and bookkeeping tables. */
const migratorOf = (database: Database) =>
  new Migrator({
    db: database.db,
    provider: kcoreMigrationProvider,
    migrationTableName: KCORE_MIGRATION_TABLE,
    migrationLockTableName: KCORE_MIGRATION_LOCK_TABLE,
  })

/** The schema fixture taken after migration `id`. */
async function schemaFixture(id: string) {
  return JSON.parse(
    await readFile(new URL(`./fixtures/schema-${id}.json`, import.meta.url), 'utf8'),
  )
}

describe.each(testDatabases())('k-core store migrations on $name', ({ open }) => {
  it('keeps the released ids, one migration per file, in order', () => {
    expect(Object.keys(migrations)).toEqual(RELEASED)
  })

  it('builds the schema the single-file migrations built (fixture taken from them)', async () => {
    const database = await open()
    try {
      await createKcoreStore(database).migrate()
      expect(await schemaOf(database.db)).toEqual(await schemaFixture('0010'))
    } finally {
      await database.close()
    }
  })

  it('drops the trend index in 0008 and makes its tables again going down (0009 too), data kept', async () => {
    const database = await open()
    try {
      const store = createKcoreStore(database)
      await store.migrate()
      await ingestFile(store, FIXTURE)
      const before = await (await store.reader()).trends('ipv4', [3356, 174])
      const migrator = migratorOf(database)
      const down = await migrator.migrateTo('0007_trend_index')
      expect(down.error).toBeUndefined()
      expect(await schemaOf(database.db)).toEqual(await schemaFixture('0007'))
      await createKcoreStore(database).migrate()
      expect(await schemaOf(database.db)).toEqual(await schemaFixture('0010'))
      const after = await (await createKcoreStore(database).reader()).trends('ipv4', [3356, 174])
      expect(after).toEqual(before)
    } finally {
      await database.close()
    }
  })

  it('drops the links table going down from 0010, to the schema 0009 built', async () => {
    const database = await open()
    try {
      await createKcoreStore(database).migrate()
      const migrator = migratorOf(database)
      expect((await migrator.migrateTo('0009_as_registry')).error).toBeUndefined()
      expect(await schemaOf(database.db)).toEqual(await schemaFixture('0009'))
    } finally {
      await database.close()
    }
  })

  it('sends the revision and snapshot count with each revision change from 0011, not before', async () => {
    const database = await open()
    try {
      const store = createKcoreStore(database)
      await store.migrate()
      const migrator = migratorOf(database)
      // What the trigger function sends, read back by running its payload expression as it
      // stands in the function body (PostgreSQL delivers a notification to other sessions only).
      const sent = async () => {
        const { rows } = await sql<{ body: string }>`
          select prosrc as body from pg_proc where proname = 'kcore_revision_notify'`.execute(
          database.db,
        )
        return rows[0]!.body.replace(/\s+/g, ' ')
      }
      expect(await sent()).toContain('count(*) from kcore_snapshot')
      await ingestFile(store, FIXTURE)
      const reader = await store.reader()
      expect(await reader.snapshotCount()).toBe(1)
      const { rows } = await sql<{
        n: number
      }>`select count(*)::int as n from kcore_snapshot`.execute(database.db)
      expect(await reader.snapshotCount()).toBe(rows[0]!.n)
      expect((await migrator.migrateTo('0010_snapshot_links')).error).toBeUndefined()
      expect(await sent()).not.toContain('kcore_snapshot')
      await store.migrate()
      expect(await sent()).toContain('count(*) from kcore_snapshot')
    } finally {
      await database.close()
    }
  })

  it('upgrades a database at the current schema in place, with its data', async () => {
    const database = await open()
    try {
      const before = createKcoreStore(database)
      await before.migrate()
      await ingestFile(before, FIXTURE)
      const snapshots = await (await before.reader()).snapshots('ipv4')
      const { rows } = await sql<{ name: string }>`
        select name from kcore_migration order by name`.execute(database.db)
      expect(rows.map((r) => r.name)).toEqual(RELEASED)
      // A new process with this layout: nothing to run, nothing lost.
      const after = createKcoreStore(database)
      await after.migrate()
      expect(await (await after.reader()).snapshots('ipv4')).toEqual(snapshots)
      const again = await sql<{ n: number }>`
        select count(*)::int as n from kcore_migration`.execute(database.db)
      expect(again.rows[0]!.n).toBe(RELEASED.length)
    } finally {
      await database.close()
    }
  })
})
