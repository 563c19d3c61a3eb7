import { testDatabases } from '@kcore/db/testing'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { createKcoreStore, ingestFile } from '../src/index.js'
import { migrateKcore } from '../src/testing.js'
import { FIXTURE, secondConnection } from './helpers.js'

// store.revision() shares round trips between concurrent callers; on PostgreSQL (a pool, and a
// writer on another pool) no caller may get a revision older than one committed before it asked.
describe.each(testDatabases())('shared revision reads on $name', ({ open }) => {
  it('answer every concurrent caller at least the revision committed before it asked', async () => {
    const database = await open(migrateKcore)
    const store = createKcoreStore(database)
    await store.migrate()
    const other = await secondConnection(database)
    const seed = Date.now()
    try {
      const committed = async () => {
        const { rows } = await sql<{ r: string }>`
          select revision::text as r from kcore_revision`.execute(other.db)
        return BigInt(rows[0]!.r)
      }
      let random = seed
      const next = () => {
        random = (random * 1103515245 + 12345) % 2 ** 31
        return random / 2 ** 31
      }
      const checks: Promise<void>[] = []
      for (let round = 0; round < 40; round++) {
        await sql`update kcore_revision set revision = revision + 1`.execute(other.db)
        const floor = await committed()
        const callers = 1 + Math.floor(next() * 10)
        for (let i = 0; i < callers; i++) {
          checks.push(
            store
              .reader()
              .then((r) => r.revision)
              .then((got) => {
                expect(BigInt(got), `seed ${seed}, round ${round}`).toBeGreaterThanOrEqual(floor)
              }),
          )
        }
        if (next() < 0.5) await new Promise((r) => setImmediate(r))
      }
      await Promise.all(checks)
      expect(BigInt((await store.reader()).revision)).toBe(await committed())
    } finally {
      await other.close()
      await database.close()
    }
  })
})

describe.each(testDatabases().filter((d) => d.name === 'pglite'))(
  'the revision after a commit on $name',
  ({ open }) => {
    it('comes with its snapshot count from the commit, not from a query behind the next transaction', async () => {
      const database = await open(migrateKcore)
      const store = createKcoreStore(database)
      await store.migrate()
      try {
        const before = await store.reader()
        await ingestFile(store, FIXTURE)
        // A transaction holds PGlite's one session, as a refresh's next ingest does.
        let release!: () => void
        let opened!: () => void
        const open_ = new Promise<void>((resolve) => (opened = resolve))
        const holding = database.db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx)
          opened()
          await new Promise<void>((resolve) => (release = resolve))
        })
        await open_
        const reader = await store.reader()
        expect(BigInt(reader.revision)).toBe(BigInt(before.revision) + 1n)
        expect(await reader.snapshotCount()).toBe(1)
        release()
        await holding
        const { rows } = await sql<{ r: string }>`
          select revision::text as r from kcore_revision`.execute(database.db)
        expect(reader.revision).toBe(rows[0]!.r)
      } finally {
        await database.close()
      }
    })
  },
)
