import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from './database.js'
import { secondConnection, testDatabases } from './testing.js'

const postgres = testDatabases().find((t) => t.name === 'postgres')

describe.skipIf(!postgres)('JIT on PostgreSQL', () => {
  let database: Database
  beforeAll(async () => {
    database = await postgres!.open()
    // a one-row table never analyzed: the planner takes it for thousands of rows
    await sql`create table one_row (revision bigint not null)`.execute(database.db)
    await sql`insert into one_row values (1)`.execute(database.db)
    await sql`create table listed (date date not null, shell int not null)`.execute(database.db)
    await sql`insert into listed select d::date, 1 from
      generate_series('1990-01-01'::date, '2028-01-01', '1 month') d`.execute(database.db)
  })
  afterAll(() => database?.close())

  it('is off on every connection of the pool, four of them at once', async () => {
    const pool = await secondConnection(database, process.env, { maxConnections: 4 })
    // Each transaction holds its connection until all four are inside one, so the four are
    // four connections however slowly the pool opens them (a 50 ms sleep was not enough on a
    // loaded CI machine: one connection served two).
    let inside = 0
    let allInside: () => void = () => {}
    const barrier = new Promise<void>((resolve) => (allInside = resolve))
    const settings = await Promise.all(
      Array.from({ length: 4 }, () =>
        pool.db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx)
          if (++inside === 4) allInside()
          await barrier
          const { rows } = await sql<{ jit: string; pid: number }>`
            select current_setting('jit') as jit, pg_backend_pid() as pid`.execute(trx)
          return rows[0]!
        }),
      ),
    ).finally(() => pool.close())
    expect(new Set(settings.map((s) => s.pid)).size).toBe(4)
    expect(settings.map((s) => s.jit)).toEqual(Array(4).fill('off'))
  })

  it('compiles nothing for a statement whose estimate passes the JIT threshold', async () => {
    // the trend model's listing has this shape: a cross join with the one-row table
    const { rows } = await sql<{
      'QUERY PLAN': [{ Plan: { 'Total Cost': number }; JIT?: unknown }]
    }>`
      explain (analyze, format json)
      select r.revision, l.date from one_row r left join listed l on true
      order by l.date`.execute(database.db)
    const [plan] = rows[0]!['QUERY PLAN']
    const { rows: threshold } = await sql<{ cost: string }>`
      select current_setting('jit_above_cost') as cost`.execute(database.db)
    expect(plan.Plan['Total Cost']).toBeGreaterThan(Number(threshold[0]!.cost))
    expect(plan.JIT).toBeUndefined()
  })
})
