import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCalStore } from '../src/index.js'
import type { CalDb } from '../src/store-context.js'
import { migrateCal } from '../src/testing.js'
import { isTransientConflict, transact, WRITE_ATTEMPTS, WriteConflict } from '../src/transact.js'

const NOW = new Date('2026-03-01T00:00:00Z')

/** A venue row written in `trx`: the write an attempt makes, and a rollback must undo. */
async function insertVenue(trx: CalDb, name: string): Promise<{ id: number }> {
  const slug = name.toLowerCase().replaceAll(' ', '-')
  const { rows } = await sql<{ id: number }>`insert into cal_venue
      (status, created, modified, name, slug) values ('publish', ${NOW}, ${NOW}, ${name}, ${slug})
    returning id`.execute(trx)
  return rows[0]!
}

describe.each(testDatabases())('write retry on $name', ({ name, open }) => {
  let database: Database
  let db: CalDb
  beforeAll(async () => {
    database = await open(migrateCal)
    await createCalStore(database).migrate()
    db = database.db as unknown as CalDb
  })
  afterAll(async () => {
    await database?.close()
  })

  it('knows the transient SQLSTATEs, also as a cause, and nothing else', () => {
    expect(isTransientConflict({ code: '40P01' })).toBe(true)
    expect(isTransientConflict({ code: '40001' })).toBe(true)
    expect(isTransientConflict(new Error('x', { cause: { code: '40P01' } }))).toBe(true)
    for (const other of [{ code: '23505' }, { code: '23503' }, new Error('40P01'), null, 7]) {
      expect(isTransientConflict(other)).toBe(false)
    }
  })

  it('runs a transaction that keeps conflicting at most WRITE_ATTEMPTS times, then throws', async () => {
    let runs = 0
    await expect(
      transact(db, async () => {
        runs++
        throw new WriteConflict('always')
      }),
    ).rejects.toBeInstanceOf(WriteConflict)
    expect(runs).toBe(WRITE_ATTEMPTS)
  })

  it('does not retry other errors and rolls each attempt back', async () => {
    let runs = 0
    await expect(
      transact(db, async (trx) => {
        runs++
        await insertVenue(trx, 'Rolled back')
        throw new Error('not transient')
      }),
    ).rejects.toThrow('not transient')
    expect(runs).toBe(1)
    let conflicts = 0
    const id = await transact(db, async (trx) => {
      const row = await insertVenue(trx, `Attempt ${conflicts}`)
      if (conflicts++ < 2) throw new WriteConflict('again')
      return row.id
    })
    const names = await db.selectFrom('cal_venue').select(['id', 'name']).execute()
    expect(names).toEqual([{ id, name: 'Attempt 2' }])
  })

  it.skipIf(name !== 'postgres')('settles a real deadlock by retrying the victim', async () => {
    const [a, b] = await Promise.all(
      ['Lock A', 'Lock B'].map(async (n) => (await transact(db, (trx) => insertVenue(trx, n))).id),
    )
    let runs = 0
    // Both take their first row, wait until the other has too, then want the other's row.
    let arrived = 0
    let release: () => void = () => {}
    const bothLocked = new Promise<void>((resolve) => {
      release = resolve
    })
    const cross = (first: number, second: number) =>
      transact(db, async (trx) => {
        runs++
        await sql`select id from cal_venue where id = ${first} for update`.execute(trx)
        if (++arrived === 2) release()
        await bothLocked
        await sql`select id from cal_venue where id = ${second} for update`.execute(trx)
        return first
      })
    await expect(Promise.all([cross(a!, b!), cross(b!, a!)])).resolves.toEqual([a, b])
    expect(runs).toBe(3)
  })
})
