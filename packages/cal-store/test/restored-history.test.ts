import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CalStore, CalSyncTokenExpiredError, createCalStore } from '../src/index.js'
import { migrateCal } from '../src/testing.js'

const start = new Date('2031-02-01T10:00:00Z')
const end = new Date('2031-02-01T11:00:00Z')

/**
 * A logical backup restored: every calendar table's rows and every sequence of `from`, as they
 * are now, into the migrated `to` (its own rows replaced), with triggers off as `pg_restore`
 * loads data. The copy shares the original's token secret, as a restored backup does.
 */
async function restoreCopy(from: Database, to: Database): Promise<void> {
  const { rows: tables } = await sql<{ name: string; columns: string[] }>`
    select c.table_name as name,
      array_agg(c.column_name::text order by c.ordinal_position) as columns
    from information_schema.columns c join information_schema.tables t
      on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
      and c.table_name like 'cal\\_%' and c.is_generated = 'NEVER'
    group by c.table_name`.execute(from.db)
  const { rows: sequences } = await sql<{ name: string; value: string | null }>`
    select sequencename as name, last_value::text as value from pg_sequences
    where schemaname = 'public'`.execute(from.db)
  const data = new Map<string, string>()
  for (const { name } of tables) {
    const { rows } = await sql<{ rows: string | null }>`
      select json_agg(t)::text as rows from ${sql.table(name)} t`.execute(from.db)
    data.set(name, rows[0]?.rows ?? '[]')
  }
  await to.db.transaction().execute(async (trx) => {
    await sql`set local session_replication_role = replica`.execute(trx)
    for (const { name, columns } of tables) {
      const list = sql.join(columns.map((c) => sql.ref(c)))
      await sql`delete from ${sql.table(name)}`.execute(trx)
      await sql`insert into ${sql.table(name)} (${list}) overriding system value
        select ${list} from json_populate_recordset(null::${sql.table(name)},
          ${data.get(name)}::text::json)`.execute(trx)
    }
    for (const { name, value } of sequences) {
      if (value !== null) await sql`select setval(${name}, ${value}::bigint)`.execute(trx)
    }
  })
}

describe.each(testDatabases())('a restored backup on $name', ({ open }) => {
  let original: Database
  let restored: Database
  let originalStore: CalStore

  beforeAll(async () => {
    original = await open(migrateCal)
    restored = await open(migrateCal)
    originalStore = createCalStore(original)
    await originalStore.migrate()
    await createCalStore(restored).migrate()
  })
  afterAll(async () => {
    await original?.close()
    await restored?.close()
  })

  const mark = async (store: CalStore) => (await store.reader()).syncToken()
  const createEvents = async (store: CalStore, title: string, count: number) => {
    const ids: number[] = []
    for (let i = 0; i < count; i++) {
      ids.push((await store.events.create({ title: `${title} ${i}`, start, end })).id)
    }
    return ids
  }
  const followed = async (store: CalStore, since: string) =>
    (await (await store.reader()).changes({ since, limit: 500 })).changes.map(
      (c) => `${c.action}:${c.id}`,
    )

  it('refuses tokens the restored history did not make, and follows the ones it shares', async () => {
    await createEvents(originalStore, 'Before the backup', 3)
    const shared = await mark(originalStore)
    await restoreCopy(original, restored)
    // The original goes on: a token of a revision the backup never reached.
    const later = await createEvents(originalStore, 'After the backup', 3)
    const fromTheFuture = await mark(originalStore)
    expect(await followed(originalStore, shared)).toEqual(later.map((id) => `created:${id}`))

    // The service restarts on the restored database.
    const store = createCalStore(restored)
    await store.migrate()
    const reader = await store.reader()
    await expect(reader.changes({ since: fromTheFuture })).rejects.toBeInstanceOf(
      CalSyncTokenExpiredError,
    )
    // Its own writes number their revisions as the original's were: the token still names a
    // revision the restored history now has, of another history.
    const own = await createEvents(store, 'Restored', 5)
    await expect((await store.reader()).changes({ since: fromTheFuture })).rejects.toThrow(
      /history this database does not have/,
    )
    // A token of the history both share still follows, and misses nothing written since.
    expect(await followed(store, shared)).toEqual(own.map((id) => `created:${id}`))
    // And a new token of the restored database follows it.
    const fresh = await mark(store)
    const next = await createEvents(store, 'Next', 1)
    expect(await followed(store, fresh)).toEqual(next.map((id) => `created:${id}`))
  })
})
