import fc from 'fast-check'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import type { Database } from './database.js'
import { notifyOnChange, revisionReads } from './revision-reads.js'
import { testDatabases } from './testing.js'

const tick = () => new Promise((r) => setImmediate(r))

/** Table `r` whose one row's `n` notifies `r_changed`, with `n` as the payload when `payload`. */
async function revisionTable(database: Database, payload = false) {
  await sql`create table r (id boolean primary key default true, n int not null)`.execute(
    database.db,
  )
  await sql`insert into r (n) values (0)`.execute(database.db)
  await notifyOnChange(
    database.db,
    'r',
    'r_changed',
    payload ? sql<string>`(select n::text from r)` : undefined,
  )
  let reads = 0
  const query = async () => {
    reads++
    const { rows } = await sql<{ n: number }>`select n from r`.execute(database.db)
    return rows[0]!.n
  }
  return {
    query,
    get reads() {
      return reads
    },
    bump: () => sql`update r set n = n + 1`.execute(database.db),
  }
}

/** What `revisionReads` makes of the table's payload (see {@link revisionTable}). */
const fromPayload = (text: string) => (/^\d+$/.test(text) ? Number(text) : undefined)

describe.each(testDatabases())('revisionReads on $name', ({ name, open }) => {
  it.each([
    ['', false],
    [', the committed value sent as the payload', true],
  ])('never answers older than a commit that returned before the call%s', async (_, payload) => {
    const database = await open()
    try {
      const table = await revisionTable(database, payload)
      // Steps biased to the edges: writes right before and after calls, in committed and
      // rolled-back transactions, calls in flight across a commit, many callers at once.
      const step = fc.constantFrom(
        'call',
        'calls',
        'bump',
        'trx',
        'rollback',
        'twice',
        'tick',
        'hold',
        'release',
      )
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), async (script) => {
          // 'hold' calls and keeps the read it starts (if any) in flight after its query, across
          // the steps that follow, until a 'release'.
          let holdNext = false
          const held: (() => void)[] = []
          const reads = revisionReads(
            database,
            'r_changed',
            async () => {
              const n = await table.query()
              if (holdNext) {
                holdNext = false
                await new Promise<void>((resolve) => held.push(resolve))
              }
              return n
            },
            payload ? fromPayload : undefined,
          )
          const checks: Promise<void>[] = []
          const call = async (count: number) => {
            const floor = await table.query()
            for (let i = 0; i < count; i++) {
              checks.push(reads().then((got) => expect(got).toBeGreaterThanOrEqual(floor)))
            }
          }
          for (const s of script) {
            if (s === 'call') await call(1)
            else if (s === 'calls') await call(10)
            else if (s === 'bump') await table.bump()
            else if (s === 'trx' || s === 'rollback' || s === 'twice') {
              await database.db
                .transaction()
                .execute(async (trx) => {
                  await sql`update r set n = n + 1`.execute(trx)
                  // Two notifications in one commit: the last holds the committed value.
                  if (s === 'twice') await sql`update r set n = n + 1`.execute(trx)
                  if (s === 'rollback') throw new Error('rolled back')
                })
                .catch(() => {})
            } else if (s === 'tick') await tick()
            else if (s === 'hold') {
              holdNext = true
              const before = held.length
              await call(1)
              for (let i = 0; i < 20 && held.length === before; i++) await tick()
              holdNext = false
            } else held.shift()?.()
          }
          holdNext = false
          for (const release of held) release()
          await Promise.all(checks)
          expect(await reads()).toBe(await table.query())
        }),
        { numRuns: 40 },
      )
    } finally {
      await database.close()
    }
  })

  it(
    name === 'pglite'
      ? 'costs no query while nothing is written (PGlite sees every commit)'
      : 'reads the database on every call (other processes commit unseen)',
    async () => {
      const database = await open()
      try {
        const table = await revisionTable(database)
        const reads = revisionReads(database, 'r_changed', table.query)
        for (let i = 0; i < 5; i++) expect(await reads()).toBe(0)
        const before = table.reads
        for (let i = 0; i < 5; i++) expect(await reads()).toBe(0)
        expect(table.reads - before).toBe(name === 'pglite' ? 0 : 5)
        await table.bump()
        expect(await reads()).toBe(1)
        // A rollback notifies nothing, and changes nothing either.
        await database.db
          .transaction()
          .execute(async (trx) => {
            await sql`update r set n = 5`.execute(trx)
            throw new Error('rolled back')
          })
          .catch(() => {})
        const afterRollback = table.reads
        expect(await reads()).toBe(1)
        expect(table.reads - afterRollback).toBe(name === 'pglite' ? 0 : 1)
      } finally {
        await database.close()
      }
    },
  )

  it(
    name === 'pglite'
      ? 'takes a commit notification payload as the value, with no query after the commit'
      : 'reads the database on every call, payload or not',
    async () => {
      const database = await open()
      try {
        const table = await revisionTable(database, true)
        const reads = revisionReads(database, 'r_changed', table.query, fromPayload)
        expect(await reads()).toBe(0)
        const before = table.reads
        await table.bump()
        await table.bump()
        expect(await reads()).toBe(2)
        expect(await reads()).toBe(2)
        expect(table.reads - before).toBe(name === 'pglite' ? 0 : 2)
        // A payload it cannot read retires the kept value: the next call asks the database.
        await sql`select pg_notify('r_changed', 'not a number')`.execute(database.db)
        const afterUnreadable = table.reads
        expect(await reads()).toBe(2)
        expect(table.reads - afterUnreadable).toBe(1)
      } finally {
        await database.close()
      }
    },
  )
})

describe('revisionReads listening', () => {
  /** A database that only listens: counts the LISTENs, and fails the first `failing` of them. */
  function listeningDatabase(failing = 0) {
    let listens = 0
    const database = {
      listenInProcess: async () => {
        listens++
        if (listens <= failing) throw new Error('the engine restarted')
        return () => {}
      },
    } as unknown as Database
    return {
      database,
      get listens() {
        return listens
      },
    }
  }

  it('starts listening when made, so the first read does not wait for it', async () => {
    const fake = listeningDatabase()
    const reads = revisionReads(fake.database, 'c', async () => 7)
    expect(fake.listens).toBe(1)
    expect(await reads()).toBe(7)
    expect(await reads()).toBe(7)
    expect(fake.listens).toBe(1)
  })

  it('leaves a listen that failed when made to the first read, which retries it', async () => {
    const fake = listeningDatabase(1)
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      const reads = revisionReads(fake.database, 'c', async () => 7)
      await tick()
      expect(await reads()).toBe(7)
      expect(fake.listens).toBe(2)
      await tick()
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })
})
