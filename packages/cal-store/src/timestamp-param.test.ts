import { testDatabases } from '@kcore/db/testing'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { timestampParam } from './timestamp-param.js'

// The drivers send a Date past year 9999 as `+010000-…`, which PostgreSQL refuses.
describe.each(testDatabases())('timestampParam on $name', ({ open }) => {
  it('round-trips instants from year 999 to year 10000 (UTC)', async () => {
    const database = await open()
    try {
      for (const iso of [
        '0999-12-30T00:00:00.000Z',
        '1000-01-01T00:00:00.000Z',
        '9999-12-31T23:59:59.000Z',
        '+010000-01-01T07:59:59.000Z',
      ]) {
        const instant = new Date(iso)
        const { rows } = await sql<{ t: Date }>`select ${timestampParam(instant)} as t`.execute(
          database.db,
        )
        expect(rows[0]?.t.getTime(), iso).toBe(instant.getTime())
      }
    } finally {
      await database.close()
    }
  })
})
