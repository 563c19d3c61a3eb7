import { secondConnection, type TestDatabase, testDatabases } from '@kcore/db/testing'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { type CalReader, type CalStore, createCalStore } from '../src/index.js'
import { prng } from '../src/testing.js'

// A reader's list and its sync token come from one snapshot, for every kind: while other
// connections write, each list shows exactly the data of the revision its token stands at
// (checked against the changes feed's own history), so following the feed from the token
// repeats nothing the list showed and misses nothing it did not.

const pgUrl = process.env.DATABASE_URL
/** A throwaway PostgreSQL database, dropped when closed. */
const openPostgres = () =>
  (testDatabases().find((d) => d.name === 'postgres') as TestDatabase).open()

type Kind = 'event' | 'venue' | 'organizer' | 'category'

interface Sample {
  kind: Kind
  revision: number
  total: number
  items: { id: number; status: string; modified: string }[]
}

/** Every record a token holder may list of `kind`, first page. */
function listOf(reader: CalReader, kind: Kind) {
  const status = ['publish', 'draft'] as const
  if (kind === 'event') {
    return reader.events.list({
      window: { start: new Date('1000-01-01T00:00:00Z'), end: new Date('9999-12-31T00:00:00Z') },
      status: [...status],
      limit: 50,
    })
  }
  if (kind === 'venue') return reader.venues.list({ status: [...status], limit: 50 })
  if (kind === 'organizer') return reader.organizers.list({ status: [...status], limit: 50 })
  return reader.categories.list({ hide_empty: false, limit: 50 })
}

describe.runIf(pgUrl)('lists and their tokens under concurrent writers (PostgreSQL)', () => {
  it('shows each token revision exactly, for every kind', async () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31)
    const rnd = prng(seed)
    const readerDatabase = await openPostgres()
    const writerDatabase = await secondConnection(readerDatabase)
    try {
      const store: CalStore = createCalStore(readerDatabase)
      const writer = createCalStore(writerDatabase)
      await writer.migrate()
      const start = new Date('2026-05-01T10:00:00Z')
      const end = new Date('2026-05-01T11:00:00Z')
      for (let i = 0; i < 10; i++) {
        await writer.venues.create({ name: `Hall ${i}` })
        await writer.organizers.create({ name: `Org ${i}` })
        await writer.categories.create({ name: `Cat ${i}` })
        await writer.events.create({ title: `Event ${i}`, start, end, timezone: 'UTC' })
      }
      let writing = true
      const writes = Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; i < 25; i++) {
          const id = rnd.int(1, 12)
          const status = rnd.pick(['publish', 'draft', 'trash'] as const)
          const roll = rnd.int(0, 3)
          const quiet = () => undefined
          if (roll === 0) {
            await writer.events.create({ title: `W ${w}.${i}`, start, end, timezone: 'UTC' })
            await writer.events.update(id, { status, title: `U ${w}.${i}` }).catch(quiet)
          } else if (roll === 1) {
            await writer.venues.create({ name: `Hall ${w}.${i}` })
            await writer.venues.update(id, { status, name: `Hall ${w}.${i}b` }).catch(quiet)
          } else if (roll === 2) {
            await writer.organizers.update(id, { status, name: `Org ${w}.${i}b` }).catch(quiet)
          } else {
            await writer.categories.create({ name: `Cat ${w}.${i}` }).catch(quiet)
            await writer.categories.delete(id).catch(quiet)
          }
        }
      })
      const kinds: Kind[] = ['event', 'venue', 'organizer', 'category']
      const samples: Sample[] = []
      const reads = (async () => {
        for (let n = 0; writing || n < kinds.length; n++) {
          const kind = kinds[n % kinds.length] as Kind
          const reader = await store.reader()
          const page = await listOf(reader, kind)
          const token = await reader.syncToken()
          samples.push({
            kind,
            // The token starts with its revision (test knowledge, not API).
            revision: Number(token.split(/[.-]/)[0]),
            total: page.total,
            items: page.items.map((r) => ({
              id: r.id,
              status: 'status' in r ? r.status : 'publish',
              modified: 'modified' in r ? r.modified.toISOString().slice(0, 23) : '',
            })),
          })
        }
      })()
      await Promise.all(writes)
      writing = false
      await reads
      expect(samples.length, `seed ${seed}`).toBeGreaterThan(8)

      const { rows } = await sql<{
        kind: string
        id: string
        revision: string
        status: string | null
        modified: string
      }>`select kind, record_id as id, revision, after_status as status,
          to_char(modified at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') as modified
        from cal_change where revision is not null order by revision, seq`.execute(
        writerDatabase.db,
      )
      const at = (kind: Kind, id: number, revision: number) => {
        let state: (typeof rows)[number] | undefined
        for (const row of rows) {
          if (Number(row.revision) > revision) break
          if (row.kind === kind && Number(row.id) === id) state = row
        }
        return state
      }
      const ids = (kind: Kind) =>
        new Set(rows.filter((r) => r.kind === kind).map((r) => Number(r.id)))
      const wrong: string[] = []
      for (const s of samples) {
        let alive = 0
        for (const id of ids(s.kind)) {
          const status = at(s.kind, id, s.revision)?.status
          if (status && status !== 'trash') alive++
        }
        if (alive !== s.total) wrong.push(`${s.kind}s at ${s.revision}: ${s.total}, ${alive} then`)
        for (const item of s.items) {
          const then = at(s.kind, item.id, s.revision)
          const modified = s.kind === 'category' ? '' : then?.modified
          if (then?.status !== item.status || modified !== item.modified) {
            wrong.push(
              `${s.kind} ${item.id} at ${s.revision}: shown ${item.status} ${item.modified}, ` +
                `then ${then?.status} ${modified}`,
            )
          }
        }
      }
      expect(wrong.join('\n'), `seed ${seed}`).toBe('')
    } finally {
      await writerDatabase.close()
      await readerDatabase.close()
    }
  }, 180_000)

  it('reads a page and its relations in one snapshot (listWith)', async () => {
    const database = await openPostgres()
    try {
      const store = createCalStore(database)
      await store.migrate()
      const venue = await store.venues.create({ name: 'Old Hall' })
      const event = await store.events.create({
        title: 'Concert',
        start: new Date('2026-05-01T10:00:00Z'),
        end: new Date('2026-05-01T11:00:00Z'),
        venue: venue.id,
      })
      const window = {
        start: new Date('2026-01-01T00:00:00Z'),
        end: new Date('2027-01-01T00:00:00Z'),
      }
      const reader = await store.reader()
      const seen = await reader.events.listWith({ window }, async (page, records) => {
        // A rename commits on another connection after the page was read.
        await store.venues.update(venue.id, { name: 'New Hall' })
        return { page, venues: await records.venues.getMany([venue.id]) }
      })
      expect(seen.page.items.map((e) => e.id)).toEqual([event.id])
      expect(seen.venues.map((v) => v.name)).toEqual(['Old Hall'])
      // The token stands at the snapshot: following it shows the rename.
      const token = await reader.syncToken()
      const next = await (await store.reader()).changes({ since: token })
      expect(next.changes.map((c) => [c.kind, c.id])).toContainEqual(['venue', venue.id])
    } finally {
      await database.close()
    }
  })
})
