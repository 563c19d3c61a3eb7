import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import type { Database } from './database.js'
import { openPostgresDatabase } from './postgres-database.js'
import { secondConnection, testDatabases } from './testing.js'

const postgres = testDatabases().find((t) => t.name === 'postgres')

/** The test's statements (see `texts`) that the pool's one connection holds by name. */
async function preparedOn(db: Database): Promise<string[]> {
  // postgres.js prepares a catalog query of its own on connecting: left out.
  const { rows } = await sql<{ statement: string }>`
    select statement from pg_prepared_statements
    where starts_with(statement, ${'select $1::int + $2::int'}) order by statement`.execute(db.db)
  return rows.map((r) => r.statement)
}

describe.skipIf(!postgres)('prepared statements on PostgreSQL', () => {
  const open: Database[] = []
  afterEach(async () => {
    for (const d of open.splice(0).reverse()) await d.close()
  })

  /** A throwaway database, and a one-connection pool to it with `preparedStatements`. */
  async function pool(preparedStatements?: number): Promise<Database> {
    const owner = await postgres!.open()
    open.push(owner)
    const db = await secondConnection(owner, process.env, {
      maxConnections: 1,
      preparedStatements,
    })
    open.push(db)
    return db
  }

  const texts = (n: number) =>
    Array.from({ length: n }, (_, i) => sql`select ${i}::int + ${i}::int as ${sql.id(`n${i}`)}`)

  it('prepares each text once per connection, and runs it again by name', async () => {
    const db = await pool()
    for (let round = 0; round < 3; round++) {
      for (const [i, q] of texts(2).entries()) {
        expect((await q.execute(db.db)).rows).toEqual([{ [`n${i}`]: 2 * i }])
      }
    }
    expect(await preparedOn(db)).toEqual([
      'select $1::int + $2::int as "n0"',
      'select $1::int + $2::int as "n1"',
    ])
  })

  it('prepares no more texts than the cap: the ones after run unnamed', async () => {
    const db = await pool(3)
    for (const [i, q] of texts(8).entries()) {
      expect((await q.execute(db.db)).rows).toEqual([{ [`n${i}`]: 2 * i }])
    }
    expect(await preparedOn(db)).toHaveLength(3)
  })

  it('answers right with ten callers at once over four connections, past the cap', async () => {
    const owner = await postgres!.open()
    open.push(owner)
    const db = await secondConnection(owner, process.env, {
      maxConnections: 4,
      preparedStatements: 3,
    })
    open.push(db)
    const answers = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const got = []
        for (const q of texts(6)) got.push((await q.execute(db.db)).rows[0])
        return got
      }),
    )
    const expected = Array.from({ length: 6 }, (_, i) => ({ [`n${i}`]: 2 * i }))
    for (const got of answers) expect(got).toEqual(expected)
  })

  it('prepares nothing with preparedStatements: 0', async () => {
    const db = await pool(0)
    for (const q of texts(3)) await q.execute(db.db)
    expect(await preparedOn(db)).toEqual([])
  })
})

describe('the prepared-statement cap', () => {
  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses preparedStatements %s',
    (value) => {
      expect(() =>
        openPostgresDatabase('postgres://127.0.0.1:1/none', { preparedStatements: value }),
      ).toThrow(RangeError)
    },
  )
})
