import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import type { Database } from './database.js'
import { drainingPool } from './draining-pool.js'
import { secondConnection, testDatabases } from './testing.js'

const postgres = testDatabases().find((t) => t.name === 'postgres')

/** Whether `promise` settles within `ms`. */
const settlesWithin = (promise: Promise<unknown>, ms: number) =>
  Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms)),
  ])

describe('drainingPool', () => {
  /** A pool whose connections and end the test watches. */
  function fakePool() {
    const log: string[] = []
    let n = 0
    const pool = drainingPool({
      async reserve() {
        const id = ++n
        log.push(`reserve ${id}`)
        return { id, release: () => log.push(`release ${id}`) }
      },
      async end() {
        log.push('end')
      },
    })
    return { pool, log }
  }

  it('ends the pool only once every reserved connection is released', async () => {
    const { pool, log } = fakePool()
    const a = await pool.reserve()
    const b = await pool.reserve()
    const ended = pool.end()
    expect(await settlesWithin(ended, 20)).toBe(false)
    a.release()
    a.release() // a second release counts once
    expect(await settlesWithin(ended, 20)).toBe(false)
    // A statement of a request still in flight gets its connection while the pool drains.
    const c = await pool.reserve()
    b.release()
    expect(await settlesWithin(ended, 20)).toBe(false)
    c.release()
    await ended
    expect(log).toEqual([
      'reserve 1',
      'reserve 2',
      'release 1',
      'reserve 3',
      'release 2',
      'release 3',
      'end',
    ])
    await expect(pool.reserve()).rejects.toThrow('the database is closed')
    expect(pool.end()).toBe(ended)
  })

  it('ends at once with nothing reserved, and counts a failed reserve as none', async () => {
    const failing = drainingPool<{ release(): void }>({
      reserve: async () => {
        throw new Error('no connection')
      },
      end: async () => {},
    })
    await expect(failing.reserve()).rejects.toThrow('no connection')
    expect(await settlesWithin(failing.end(), 100)).toBe(true)
  })
})

describe.skipIf(!postgres)('closing a PostgreSQL database while it reads', () => {
  const open: Database[] = []
  afterEach(async () => {
    for (const d of open.splice(0).reverse()) await d.close()
  })

  it('lets the reads in flight finish, then closes (it hung for ever before)', async () => {
    const owner = await postgres!.open()
    open.push(owner)
    const db = await secondConnection(owner, process.env, { maxConnections: 3 })
    // Ten reads in flight, each holding its connection for a while, some in transactions.
    const reads = Array.from({ length: 10 }, (_, i) =>
      i % 2 === 0
        ? sql<{ n: number }>`select pg_sleep(0.05), ${i}::int as n`.execute(db.db)
        : db.db
            .transaction()
            .setIsolationLevel('repeatable read')
            .setAccessMode('read only')
            .execute(async (trx) => {
              await sql`select pg_sleep(0.05)`.execute(trx)
              return sql<{ n: number }>`select ${i}::int as n`.execute(trx)
            }),
    )
    await new Promise((resolve) => setTimeout(resolve, 10))
    const closed = db.close()
    expect(await settlesWithin(closed, 5_000)).toBe(true)
    const answers = await Promise.all(reads)
    expect(answers.map((a) => a.rows[0]!.n)).toEqual(Array.from({ length: 10 }, (_, i) => i))
    await expect(sql`select 1`.execute(db.db)).rejects.toThrow()
  })
})
