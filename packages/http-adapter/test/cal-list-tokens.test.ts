import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CalHarness, openCal } from './cal-harness.js'

// Every list's X-CAL-Sync-Token stands at the data the list shows: following the feed from it
// reports exactly what the list did not yet count. Writers create venues, organizers and terms
// while a reader lists each kind; when they are done, each list's total plus the creations the
// feed reports after its token must equal the final total. A list read outside its token's
// snapshot counts creations the feed reports again. PostgreSQL only: PGlite's one session
// serializes the writes around each list.
const postgres = testDatabases().filter((d) => d.name === 'postgres')
const KINDS = [
  { path: '/venues', key: 'venues', type: 'venue', body: (n: string) => ({ venue: n }) },
  {
    path: '/organizers',
    key: 'organizers',
    type: 'organizer',
    body: (n: string) => ({ organizer: n }),
  },
  { path: '/categories', key: 'categories', type: 'category', body: (n: string) => ({ name: n }) },
  { path: '/tags', key: 'tags', type: 'tag', body: (n: string) => ({ name: n }) },
] as const
const LIST = '?per_page=1&hide_empty=false'

// Without DATABASE_URL one skipped suite stands in (a file with none fails).
describe.skipIf(postgres.length === 0).each(postgres.length > 0 ? postgres : testDatabases())(
  'list tokens under concurrent writes on $name',
  ({ open }) => {
    let cal: CalHarness
    beforeAll(async () => {
      cal = await openCal(open)
    })
    afterAll(async () => {
      await cal?.close()
    })

    /** The records of `type` the feed reports as created after `since`, up to now. */
    async function createdAfter(since: string, type: string): Promise<number> {
      let created = 0
      for (let token = since, more = true; more; ) {
        const answer = await cal.get(
          `/changes?since=${encodeURIComponent(token)}&per_page=500`,
          true,
        )
        expect(answer.status).toBe(200)
        for (const c of answer.body.changes)
          if (c.type === type && c.action === 'created') created++
        token = answer.body.next_since
        more = answer.body.more
      }
      return created
    }

    it('each list and its token show one state: total + created after it = the final total', async () => {
      let writing = true
      const writer = async (w: number) => {
        for (let i = 0; i < 40; i++) {
          const kind = KINDS[(w + i) % KINDS.length] as (typeof KINDS)[number]
          await cal.create(kind.path, kind.body(`w${w} n${i}`))
        }
      }
      const samples: { kind: (typeof KINDS)[number]; total: number; token: string }[] = []
      const reader = async () => {
        while (writing) {
          for (const kind of KINDS) {
            const answer = await cal.get(`${kind.path}${LIST}`, true)
            expect(answer.status).toBe(200)
            const token = answer.headers.get('x-cal-sync-token') as string
            samples.push({ kind, total: Number(answer.body.total), token })
          }
        }
      }
      const reading = reader()
      await Promise.all([0, 1, 2, 3].map(writer))
      writing = false
      await reading
      expect(samples.length).toBeGreaterThan(KINDS.length)
      const wrong: string[] = []
      for (const kind of KINDS) {
        const final = Number((await cal.get(`${kind.path}${LIST}`, true)).body.total)
        for (const s of samples.filter((x) => x.kind === kind)) {
          const created = await createdAfter(s.token, kind.type)
          if (s.total + created !== final) {
            wrong.push(`${kind.key}: listed ${s.total} + ${created} created after = ${final}?`)
          }
        }
      }
      expect(wrong).toEqual([])
    }, 120_000)
  },
)
