import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { SHARED_BUFFERS } from './create-pglite.js'
import { openPgliteDatabase } from './open-pglite-database.js'
import { testDatabases } from './testing.js'

describe.each(testDatabases())('database on $name', ({ name, open }) => {
  it('answers queries with dates as strings and int8 as numbers', async () => {
    const database = await open()
    try {
      expect(database.dialect).toBe(name)
      expect(await database.ping()).toBe(true)
      const { rows } = await sql<{
        d: string
        n: number
      }>`select date '2024-02-01' as d, count(*) as n from (values (1), (2)) v(x)`.execute(
        database.db,
      )
      expect(rows[0]).toEqual({ d: '2024-02-01', n: 2 })
    } finally {
      await database.close()
    }
  })

  it('answers a ping while a transaction is open, and while one that failed awaits its rollback', async () => {
    const database = await open()
    try {
      for (const fail of [false, true]) {
        let release!: () => void
        const held = new Promise<void>((resolve) => (release = resolve))
        let opened!: () => void
        const open_ = new Promise<void>((resolve) => (opened = resolve))
        const transaction = database.db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx)
          if (fail) await sql`select 1 / 0`.execute(trx).catch(() => {})
          opened()
          await held
          if (fail) throw new Error('rolled back')
        })
        await open_
        // PGlite has one session, which the transaction holds until `release`.
        expect(await database.ping(), fail ? 'failed transaction' : 'open transaction').toBe(true)
        release()
        if (fail) await expect(transaction).rejects.toThrow('rolled back')
        else await transaction
      }
      const { rows } = await sql<{ n: number }>`select 1 as n`.execute(database.db)
      expect(rows).toEqual([{ n: 1 }])
    } finally {
      await database.close()
    }
  })

  it('refuses a held lock and frees it afterwards', async () => {
    const database = await open()
    try {
      let inner: unknown
      const outer = await database.tryWithLock('job', async () => {
        inner = await database.tryWithLock('job', async () => 'nested')
        return 'outer'
      })
      expect(outer).toEqual({ acquired: true, value: 'outer' })
      expect(inner).toEqual({ acquired: false })
      expect(await database.tryWithLock('job', async () => 1)).toEqual({ acquired: true, value: 1 })
    } finally {
      await database.close()
    }
  })

  it('frees the lock when the work throws', async () => {
    const database = await open()
    try {
      await expect(
        database.tryWithLock('job', async () => Promise.reject(new Error('boom'))),
      ).rejects.toThrow('boom')
      expect(await database.tryWithLock('job', async () => 2)).toEqual({ acquired: true, value: 2 })
    } finally {
      await database.close()
    }
  })
})

describe('the embedded engine', () => {
  it('runs with the small shared buffer pool that keeps an idle engine small', async () => {
    const database = await testDatabases({})[0]!.open()
    try {
      const { rows } = await sql<{
        buffers: string
        wal: string
      }>`select current_setting('shared_buffers') as buffers,
        current_setting('wal_buffers') as wal`.execute(database.db)
      expect(rows[0]).toEqual({ buffers: SHARED_BUFFERS, wal: '1MB' })
    } finally {
      await database.close()
    }
  })
})

describe('an embedded database closed before its first query', () => {
  it('stops its engine: a later query fails instead of running on it', async () => {
    const database = await openPgliteDatabase()
    await database.close()
    await expect(sql`select 1`.execute(database.db)).rejects.toThrow(/closed/)
  })
})
