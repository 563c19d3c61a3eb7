import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CalStaleReadError, type CalStore, createCalStore } from '../src/index.js'
import { migrateCal } from '../src/testing.js'

// `update(id, patch, { ifSequence })`: a patch computed from a read (wall times read in the
// event's zone) applies only to that read. The concurrent case, through HTTP on PostgreSQL, is
// in packages/http-adapter/test/cal-races.test.ts.
describe.each(testDatabases())('event update with ifSequence on $name', ({ open }) => {
  let database: Database
  let store: CalStore
  beforeAll(async () => {
    database = await open(migrateCal)
    store = createCalStore(database)
    await store.migrate()
  })
  afterAll(async () => {
    await database?.close()
  })

  it('applies on the sequence it was read at, refuses any other and writes nothing', async () => {
    const created = await store.events.create({
      title: 'Read once',
      start: new Date('2026-05-01T18:00:00Z'),
      end: new Date('2026-05-01T20:00:00Z'),
    })
    const read = await store.events.update(
      created.id,
      { title: 'Second' },
      {
        ifSequence: created.sequence,
      },
    )
    expect(read.sequence).toBeGreaterThan(created.sequence)
    for (const stale of [created.sequence, read.sequence + 1, -1]) {
      await expect(
        store.events.update(created.id, { title: `stale ${stale}` }, { ifSequence: stale }),
      ).rejects.toBeInstanceOf(CalStaleReadError)
    }
    const after = await store.events.get(created.id)
    expect([after?.title, after?.sequence]).toEqual(['Second', read.sequence])
    // Without the option the update applies whatever happened in between.
    expect((await store.events.update(created.id, { title: 'Third' })).title).toBe('Third')
  })
})
