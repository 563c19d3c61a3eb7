import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Worker } from 'node:worker_threads'
import fc from 'fast-check'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from './database.js'
import { DatabaseUnavailableError } from './database-errors.js'
import { openPgliteDatabase } from './open-pglite-database.js'
import { emptyCluster, propertyRuns, testDatabases } from './testing.js'

// What must hold now that PGlite answers from a worker thread: values, errors and
// notifications cross it as they were, and a thread that dies is a failed engine.
const pglite = testDatabases({}).find((engine) => engine.name === 'pglite')!

describe('PGlite in a worker thread', () => {
  let database: Database
  beforeAll(async () => {
    database = await pglite.open()
  })
  afterAll(() => database.close())

  it('carries parameters and results of every type unchanged', async () => {
    const COLUMNS = ['t', 'b', 'd', 'n', 'f', 'j', 'a', 'x', 'z']
    // NUL-free text (PostgreSQL refuses NUL), biased to the edges of UTF-8 and of size.
    const text = fc.oneof(
      fc.constantFrom('', 'é', '𝄞', '\u{10FFFF}', '\uFFFD', '\u0001', 'x'.repeat(100_000)),
      fc.string({ unit: 'binary', maxLength: 200 }),
    )
    const row = fc.record({
      t: text.filter((s) => !s.includes('\0')),
      b: fc.oneof(fc.constant(new Uint8Array(0)), fc.uint8Array({ maxLength: 300 })),
      // From year 100: PGlite's own timestamp parser reads years 1-99 as 19xx/20xx, in any
      // thread.
      d: fc.oneof(
        fc.constantFrom(
          new Date('0100-01-01T00:00:00.000Z'),
          new Date('9999-12-31T23:59:59.999Z'),
          new Date(0),
          new Date(-1),
        ),
        fc.date({
          min: new Date('0100-01-01T00:00:00.000Z'),
          max: new Date('9999-12-31T23:59:59.999Z'),
          noInvalidDate: true,
        }),
      ),
      n: fc.oneof(
        fc.constantFrom(0n, 1n, -1n, 2n ** 53n - 1n, -(2n ** 53n) + 1n),
        fc.bigInt({ min: -(2n ** 53n) + 1n, max: 2n ** 53n - 1n }),
      ),
      f: fc.oneof(fc.constantFrom(-0, Number.NaN, Number.MAX_VALUE, Number.MIN_VALUE), fc.double()),
      j: fc.jsonValue(),
      a: fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 20 }),
      x: fc.option(fc.boolean(), { nil: null }),
      // Never another column's name ('a' drawn here once made two columns `a`: seed 1699345321).
      name: fc
        .oneof(
          fc.constantFrom('__proto__', 'constructor', 'toString', 'a b', 'é', '1'),
          fc
            .string({ unit: 'grapheme', minLength: 1, maxLength: 15 })
            .filter((s) => !s.includes('\0') && Buffer.byteLength(s) < 64),
        )
        .filter((s) => !COLUMNS.includes(s)),
    })
    await fc.assert(
      fc.asyncProperty(row, async (v) => {
        const { rows } = await sql<Record<string, unknown>>`select ${v.t}::text as t,
          ${v.b}::bytea as b, ${v.d}::timestamptz as d, ${v.n}::int8 as n, ${v.f}::float8 as f,
          ${JSON.stringify(v.j)}::json as j, ${v.a}::int4[] as a, ${v.x}::bool as x,
          null::text as z, 1 as ${sql.id(v.name)}`.execute(database.db)
        expect(rows).toHaveLength(1)
        const got = rows[0]!
        // (Key order aside: a name like '1' comes first in any JavaScript object.)
        expect(Object.keys(got).sort()).toEqual([...COLUMNS, v.name].sort())
        expect(got.t).toBe(v.t)
        expect(got.b).toBeInstanceOf(Uint8Array)
        expect([...(got.b as Uint8Array)]).toEqual([...v.b])
        expect(got.d).toBeInstanceOf(Date)
        expect((got.d as Date).getTime()).toBe(v.d.getTime())
        expect(got.n).toBe(Number(v.n))
        // PGlite sends a number parameter as its String(), which writes -0 as 0 (in any thread).
        expect(Object.is(got.f, v.f === 0 ? 0 : v.f)).toBe(true)
        expect(got.j).toEqual(JSON.parse(JSON.stringify(v.j)))
        expect(got.a).toEqual(v.a)
        expect(got.x).toBe(v.x)
        expect(got.z).toBeNull()
        expect(Object.getOwnPropertyDescriptor(got, v.name)?.value).toBe(1)
      }),
      { numRuns: propertyRuns(200, 25) },
    )
  })

  it('carries results of any size', async () => {
    const rows = 300_000
    const { rows: many } = await sql<{ i: number; s: string }>`
      select i, 'row ' || i as s from generate_series(1, ${rows}::int) i`.execute(database.db)
    expect(many).toHaveLength(rows)
    expect(many[0]).toEqual({ i: 1, s: 'row 1' })
    expect(many.at(-1)).toEqual({ i: rows, s: `row ${rows}` })
    const { rows: big } = await sql<{ v: string }>`select repeat('é', 20000000) as v`.execute(
      database.db,
    )
    expect(big[0]!.v.length).toBe(20_000_000)
    expect(big[0]!.v.slice(-2)).toBe('éé')
  }, 120_000)

  it('delivers a notification before the committing call returns, and none for a rollback', async () => {
    let seen = 0
    const stop = await database.listenInProcess!('worker_order', () => {
      seen++
    })
    try {
      for (let i = 0; i < 100; i++) {
        const before = seen
        await sql`select pg_notify('worker_order', '')`.execute(database.db)
        expect(seen).toBe(before + 1)
        await database.db.transaction().execute(async (trx) => {
          await sql`select pg_notify('worker_order', '')`.execute(trx)
          // Delivered at commit, not before.
          expect(seen).toBe(before + 1)
        })
        expect(seen).toBe(before + 2)
        await database.db
          .transaction()
          .execute(async (trx) => {
            await sql`select pg_notify('worker_order', '')`.execute(trx)
            throw new Error('roll back')
          })
          .catch(() => {})
        expect(seen).toBe(before + 2)
      }
    } finally {
      stop()
    }
  })

  it('fails a statement with the engine error: its class, SQLSTATE, fields and message', async () => {
    await sql`create table unique_x (id int primary key)`.execute(database.db)
    await sql`insert into unique_x values (1)`.execute(database.db)
    const error = await sql`insert into unique_x values (1)`
      .execute(database.db)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect(error).toMatchObject({
      code: '23505',
      severity: 'ERROR',
      constraint: 'unique_x_pkey',
      table: 'unique_x',
      message: 'duplicate key value violates unique constraint "unique_x_pkey"',
      detail: 'Key (id)=(1) already exists.',
    })
    const division = await sql`select 1 / 0`.execute(database.db).catch((e: unknown) => e)
    expect(division).toMatchObject({ code: '22012', message: 'division by zero' })
    // The session goes on after an error.
    expect(await database.ping()).toBe(true)
  })
})

describe('a PGlite worker thread that dies', () => {
  let dir: string
  const workers: Worker[] = []
  const onWorker = (worker: Worker) => workers.push(worker)
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kcore-worker-crash-'))
    process.on('worker', onWorker)
  })
  afterAll(async () => {
    process.off('worker', onWorker)
    await rm(dir, { recursive: true, force: true })
  })

  const count = async (database: Database) =>
    (await sql<{ n: number }>`select count(*) as n from t`.execute(database.db)).rows[0]!.n

  /** Waits until the restarted engine answers. */
  const servedAgain = async (database: Database) => {
    const deadline = Date.now() + 60_000
    while (!(await database.ping()) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200))
  }

  it('fails what was in flight, drops the open transaction, and is restarted', async () => {
    const logs: string[] = []
    const log = {
      info: () => {},
      warn: (m: string) => logs.push(m),
      error: (m: string) => logs.push(m),
    }
    const database = await openPgliteDatabase(await emptyCluster(join(dir, 'data')), { log })
    try {
      await sql`create table t (id int primary key)`.execute(database.db)
      await sql`insert into t values (1)`.execute(database.db)
      const thread = workers.at(-1)!
      // A transaction is open on the engine when its thread dies.
      const inTransaction = database.db.transaction().execute(async (trx) => {
        await sql`insert into t values (2)`.execute(trx)
        await thread.terminate()
        await sql`insert into t values (3)`.execute(trx)
      })
      await expect(inTransaction).rejects.toBeInstanceOf(DatabaseUnavailableError)
      expect(logs).toEqual(['embedded database failed'])
      await servedAgain(database)
      expect(await count(database)).toBe(1)
      // A statement in flight when the thread dies fails too, never hangs.
      const inFlight = sql`select count(*) from generate_series(1, 100000000)`.execute(database.db)
      await new Promise((r) => setTimeout(r, 100))
      await workers.at(-1)!.terminate()
      await expect(inFlight).rejects.toBeInstanceOf(DatabaseUnavailableError)
      await servedAgain(database)
      expect(await count(database)).toBe(1)
      expect(logs).toContain('embedded database restarted')
      expect(logs.filter((m) => m === 'embedded database failed').length).toBeGreaterThanOrEqual(2)
    } finally {
      await database.close()
    }
  }, 120_000)

  it('in memory, stays down: its data died with it', async () => {
    // Its own engine, not one the test harness keeps between databases: the last worker
    // started is then this database's.
    const database = await openPgliteDatabase()
    try {
      await sql`create table t (id int primary key)`.execute(database.db)
      await workers.at(-1)!.terminate()
      await expect(count(database)).rejects.toBeInstanceOf(DatabaseUnavailableError)
      await new Promise((r) => setTimeout(r, 1_100))
      await expect(count(database)).rejects.toBeInstanceOf(DatabaseUnavailableError)
      expect(await database.ping()).toBe(false)
    } finally {
      await database.close()
    }
  })
})
