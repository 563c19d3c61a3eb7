import { type Database, migrateToLatest } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { Migrator, sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { createCalStore, seedDemoCalendar } from '../src/index.js'
import {
  MIGRATION_LOCK_TABLE,
  MIGRATION_TABLE,
  migrationProvider,
  migrations,
} from '../src/migrations.js'
import * as singleFile from './fixtures/single-file-migrations.js'

/** The ids databases have recorded since these migrations were released (no 0008, no 0009). */
const RELEASED = [
  '0001_initial',
  '0002_term_counts',
  '0003_planned_triggers',
  '0004_slug_collation',
  '0005_event_search_text',
  '0006_event_list_indexes',
  '0007_revision',
  '0010_list_sync',
  '0011_event_change_log',
  '0012_revision_notify',
]

/** Migrations added after the single-file layout: they run on top of what it built. */
const ADDED = Object.keys(migrations).slice(RELEASED.length)

/** Every calendar table, the bookkeeping of Kysely left out. */
const CAL_TABLE = `table_name like 'cal\\_%' and table_name not like 'cal\\_migration%'`

/**
 * The schema as the catalog describes it: columns (with collation and generation), indexes,
 * constraints, triggers and the bodies of the functions they run.
 */
async function schemaOf(db: Database['db']) {
  const where = sql.raw(CAL_TABLE)
  const columns = await sql`select table_name, column_name, ordinal_position, data_type,
      is_nullable, column_default, collation_name, generation_expression
    from information_schema.columns where table_schema = 'public' and ${where}
    order by table_name, column_name`.execute(db)
  const indexes = await sql`select tablename as table_name, indexname, indexdef from pg_indexes
    where schemaname = 'public' and ${sql.raw(CAL_TABLE.replaceAll('table_name', 'tablename'))}
    order by tablename, indexname`.execute(db)
  const constraints = await sql`select c.conrelid::regclass::text as table_name, c.conname,
      pg_get_constraintdef(c.oid) as def, c.condeferrable, c.condeferred
    from pg_constraint c join pg_namespace n on n.oid = c.connamespace
    where n.nspname = 'public' and c.conrelid::regclass::text like 'cal\\_%'
      and c.conrelid::regclass::text not like 'cal\\_migration%'
    order by 1, 2`.execute(db)
  const triggers = await sql`select t.tgrelid::regclass::text as table_name, t.tgname,
      pg_get_triggerdef(t.oid) as def
    from pg_trigger t where not t.tgisinternal and t.tgrelid::regclass::text like 'cal\\_%'
    order by 1, 2`.execute(db)
  const functions = await sql`select p.proname, pg_get_functiondef(p.oid) as def
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public' and p.proname like 'cal\\_%' order by 1`.execute(db)
  return {
    columns: columns.rows,
    indexes: indexes.rows,
    constraints: constraints.rows,
    triggers: triggers.rows,
    functions: functions.rows,
  }
}

/** Every row of every calendar table (the change log included), in a stable order. */
async function dataOf(db: Database['db']) {
  const { rows: tables } = await sql<{ table_name: string }>`select table_name
    from information_schema.tables where table_schema = 'public' and ${sql.raw(CAL_TABLE)}
    order by table_name`.execute(db)
  const data: Record<string, string[]> = {}
  for (const { table_name } of tables) {
    const { rows } = await sql<{ row: string }>`select to_jsonb(t)::text as row
      from ${sql.table(table_name)} t order by 1`.execute(db)
    data[table_name] = rows.map((r) => r.row)
  }
  return data
}

/** What Kysely recorded: which migrations ran, and when. */
async function migrationLog(db: Database['db']) {
  const { rows } = await sql<{ name: string; timestamp: string }>`select name, timestamp
    from ${sql.table(MIGRATION_TABLE)} order by name`.execute(db)
  return rows
}

/** Migrates `database` with the single-file layout, as every database released so far was. */
function migrateSingleFile(database: Database) {
  return migrateToLatest(
    database.db,
    {
      provider: singleFile.migrationProvider,
      table: singleFile.MIGRATION_TABLE,
      lockTable: singleFile.MIGRATION_LOCK_TABLE,
    },
    (message, cause) => new Error(message, { cause }),
  )
}

describe.each(testDatabases())('calendar store migrations on $name', ({ open }) => {
  it('keeps the released ids, in order, and the bookkeeping tables', () => {
    expect(Object.keys(migrations)).toEqual([...RELEASED, ...ADDED])
    expect(Object.keys(singleFile.migrations)).toEqual(RELEASED)
    expect([MIGRATION_TABLE, MIGRATION_LOCK_TABLE]).toEqual([
      singleFile.MIGRATION_TABLE,
      singleFile.MIGRATION_LOCK_TABLE,
    ])
  })

  it('builds the schema the single-file migrations built', async () => {
    const [before, after] = await Promise.all([open(), open()])
    try {
      await migrateSingleFile(before)
      await createCalStore(before).migrate()
      await createCalStore(after).migrate()
      const expected = await schemaOf(before.db)
      expect(expected.triggers.length).toBeGreaterThan(20)
      expect(await schemaOf(after.db)).toEqual(expected)
      expect((await migrationLog(after.db)).map((r) => r.name)).toEqual([...RELEASED, ...ADDED])
    } finally {
      await Promise.all([before.close(), after.close()])
    }
  })

  it('upgrades a database migrated by the single-file layout in place, with its data', async () => {
    const database = await open()
    try {
      await migrateSingleFile(database)
      const now = new Date('2027-05-01T10:00:00Z')
      // The migrations added since run once, on the old layout's schema.
      await createCalStore(database).migrate()
      const old = createCalStore(database, { now: () => now })
      await seedDemoCalendar(old, { now })
      const { items } = await old.events.list({ limit: 2 })
      await old.events.update(items[0]!.id, { title: 'Renamed' })
      await old.events.trash(items[1]!.id)
      const log = await migrationLog(database.db)
      const schema = await schemaOf(database.db)
      const data = await dataOf(database.db)
      expect(data.cal_event!.length).toBeGreaterThan(5)

      // A process with the new layout: nothing runs again, nothing changes.
      const store = createCalStore(database, { now: () => now })
      await store.migrate()
      expect(await migrationLog(database.db)).toEqual(log)
      expect(await schemaOf(database.db)).toEqual(schema)
      expect(await dataOf(database.db)).toEqual(data)

      // And the triggers the old layout installed still keep the counts and the revision.
      const revision = (await store.reader()).revision
      const [category] = (await store.categories.list({ limit: 1, orderby: 'count' })).items
      await store.events.create({
        title: 'After the upgrade',
        start: new Date('2027-05-02T18:00:00Z'),
        end: new Date('2027-05-02T20:00:00Z'),
        timezone: 'UTC',
        categories: [category!.id],
      })
      expect((await store.reader()).revision).not.toBe(revision)
      expect((await store.categories.get(category!.id))!.count).toBe(category!.count + 1)
    } finally {
      await database.close()
    }
  })

  it('0016 and 0015 go down to the schema 0014 left: both change logs written again', async () => {
    const [down, at14] = await Promise.all([open(), open()])
    const migrator = (database: Database) =>
      new Migrator({
        db: database.db,
        provider: migrationProvider,
        migrationTableName: MIGRATION_TABLE,
        migrationLockTableName: MIGRATION_LOCK_TABLE,
      })
    try {
      await createCalStore(down).migrate()
      expect((await migrator(down).migrateTo('0014_recurrence')).error).toBeUndefined()
      expect((await migrator(at14).migrateTo('0014_recurrence')).error).toBeUndefined()
      expect(await schemaOf(down.db)).toEqual(await schemaOf(at14.db))
      // The restored triggers fill 0011's log again, beside the feed's.
      const store = createCalStore(down)
      await store.venues.create({ name: 'Hall' })
      const { rows } = await sql<{ log: number; changes: number }>`select
          (select count(*)::int from cal_revision_log) as log,
          (select count(*)::int from cal_change where revision is not null) as changes`.execute(
        down.db,
      )
      expect(rows[0]).toEqual({ log: 1, changes: 1 })
    } finally {
      await Promise.all([down.close(), at14.close()])
    }
  })
})
