import { secondConnection, testDatabases } from '@kcore/db/testing'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { createCalStore } from '../src/index.js'
import { migrateCal } from '../src/testing.js'

// On PostgreSQL the stores' queries are prepared statements, planned once per connection. A
// statement whose result a migration changes fails once with "cached plan must not change
// result type", and inside a transaction (every list reads in one) nothing can retry it. So
// while one process serves, another may add a column (an additive migration of a rolling
// deploy) and every read and write goes on answering the records as they were.

describe.each(testDatabases())('a column added by another process ($name)', ({ open }) => {
  it('changes no read or write of venues and organizers', async () => {
    const database = await open(migrateCal)
    const other = await secondConnection(database)
    try {
      const store = createCalStore(database)
      await store.migrate()
      const venue = await store.venues.create({ name: 'Hall', city: 'Ghent' })
      const organizer = await store.organizers.create({ name: 'Org', email: 'o@example.org' })
      await store.events.create({
        title: 'Concert',
        start: new Date('2026-06-01T18:00:00Z'),
        end: new Date('2026-06-01T20:00:00Z'),
        venue: venue.id,
        organizers: [organizer.id],
      })
      /** Every query of the two repositories, each in and out of a snapshot. */
      const everything = async (round: number) => {
        const relations = await (await store.reader()).events.listWith({}, async (page, r) => ({
          venues: await r.venues.getMany(page.items.map((e) => e.venue_id ?? 0)),
          organizers: await r.organizers.getMany(page.items.flatMap((e) => e.organizer_ids)),
        }))
        return {
          relations,
          venue: await store.venues.get(venue.id),
          bySlug: await store.organizers.getBySlug(organizer.slug),
          listed: (await (await store.reader()).venues.list()).items,
          updated: await store.venues.update(venue.id, { zip: `900${round}` }),
          made: await store.organizers.create({ name: `Org ${round}` }),
          trashed: await store.organizers.trash(
            (await store.organizers.create({ name: `T${round}` })).id,
          ),
        }
      }
      // Twice: the first run prepares every statement, the second runs them by name.
      await everything(0)
      await everything(1)
      for (const table of ['cal_venue', 'cal_organizer']) {
        await sql`alter table ${sql.table(table)} add column extra text not null default 'x'`.execute(
          other.db,
        )
      }
      const after = await everything(2)
      expect(after.relations.venues.map((v) => v.city)).toEqual(['Ghent'])
      expect(after.relations.organizers.map((o) => o.email)).toEqual(['o@example.org'])
      expect(after.updated.zip).toBe('9002')
      expect(after.trashed.status).toBe('trash')
      // The records are what they were: the new column is the other process's business.
      for (const record of [
        ...after.relations.venues,
        ...after.relations.organizers,
        after.venue,
        after.bySlug,
        ...after.listed,
        after.updated,
        after.made,
        after.trashed,
      ]) {
        expect(record).toBeDefined()
        expect(record).not.toHaveProperty('extra')
      }
    } finally {
      await other.close()
      await database.close()
    }
  })
})
