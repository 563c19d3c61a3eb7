import { propertyRuns, testDatabases } from '@kcore/db/testing'
import type { IpVersion } from '@kcore/engine'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  createKcoreStore,
  type KcoreReader,
  type KcoreStore,
  type TrendView,
} from '../src/index.js'
import { migrateKcore } from '../src/testing.js'
import { createTrendReadModel } from '../src/trend-read-model.js'
import { clearKcoreTables, decomposition, secondConnection } from './helpers.js'

// The in-memory read model must answer exactly what SQL answers, at every revision: random
// ingests and re-ingests of both versions (shell indices 254 and 255 at the byte's edge, and
// 300), queries with absent, repeated and extreme ASNs and ranges at and past the stored edges.

const RUNS = propertyRuns(60)
const DATES = ['1998-01-01', '1998-02-01', '2004-02-29', '2020-12-31', '9999-12-31']
const ASNS = [0, 1, 2, 3, 701, 3356, 65535, 4294967295]

const snapshot = fc.record({
  ipVersion: fc.constantFrom<IpVersion>('ipv4', 'ipv6'),
  date: fc.constantFrom(...DATES),
  shells: fc.uniqueArray(
    fc.tuple(
      fc.constantFrom(...ASNS),
      // 254 up: the model's wide bytes; 300 and 70,000: two- and four-byte stored shells.
      fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom(254, 255, 300, 70_000)),
    ),
    { minLength: 1, maxLength: ASNS.length, selector: ([asn]) => asn },
  ),
})
const bound = fc.option(fc.constantFrom('0001-01-01', '1998-01-01', '2004-02-29', '9999-12-31'), {
  nil: undefined,
})
const query = fc.record({
  ipVersion: fc.constantFrom<IpVersion>('ipv4', 'ipv6'),
  asns: fc.array(fc.constantFrom(...ASNS, 12345), { maxLength: 4 }),
  start: bound,
  end: bound,
})

/** The model's view at the stored revision, advancing it until it is there. */
async function modelView(
  store: KcoreStore,
  model: ReturnType<typeof createTrendReadModel>,
  q: { ipVersion: IpVersion; asns: number[]; start?: string | undefined; end?: string | undefined },
): Promise<TrendView> {
  for (let i = 0; i < 100; i++) {
    const view = model.view((await store.reader()).revision, q.ipVersion, q.asns, q)
    if (view) return view
    await model.advance()
  }
  throw new Error('the model never reached the stored revision')
}

describe.each(testDatabases())('trend read model on $name', ({ open }) => {
  it('answers every query exactly as SQL, after any ingests and re-ingests', async () => {
    const database = await open(migrateKcore)
    const sqlStore = createKcoreStore(database, { trendReadModel: false })
    await sqlStore.migrate()
    const model = createTrendReadModel(database.db as never)
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(snapshot, { minLength: 1, maxLength: 6 }),
          fc.array(query, { minLength: 1, maxLength: 5 }),
          async (snapshots, queries) => {
            await clearKcoreTables(database)
            for (const s of snapshots) {
              await sqlStore.ingest({
                ipVersion: s.ipVersion,
                date: s.date,
                decomposition: decomposition(s.shells),
                linkCount: s.shells.length,
              })
              for (const q of queries) {
                const range = { start: q.start, end: q.end }
                if (q.start && q.end && q.start > q.end) continue
                expect(await modelView(sqlStore, model, q)).toEqual(
                  await (await sqlStore.reader()).trends(q.ipVersion, q.asns, range),
                )
              }
            }
          },
        ),
        { numRuns: RUNS },
      )
    } finally {
      await database.close()
    }
  }, 300_000)

  it('keeps a version unchanged by an ingest of the other, with the new ASes absent from it', async () => {
    const database = await open(migrateKcore)
    const sqlStore = createKcoreStore(database, { trendReadModel: false })
    await sqlStore.migrate()
    const model = createTrendReadModel(database.db as never)
    const ingest = (ipVersion: IpVersion, shells: [number, number][]) =>
      sqlStore.ingest({
        ipVersion,
        date: '2001-01-01',
        decomposition: decomposition(shells),
        linkCount: 1,
      })
    try {
      await ingest('ipv4', [[701, 2]])
      const q = { ipVersion: 'ipv4' as const, asns: [701, 64512, 4294967295] }
      await modelView(sqlStore, model, q)
      // Slots for 64512 and 4294967295 come after the IPv4 rows were laid out.
      await ingest('ipv6', [
        [64512, 300],
        [4294967295, 1],
      ])
      for (const ipVersion of ['ipv4', 'ipv6'] as const) {
        expect(await modelView(sqlStore, model, { ...q, ipVersion })).toEqual(
          await (await sqlStore.reader()).trends(ipVersion, q.asns),
        )
      }
    } finally {
      await database.close()
    }
  })

  it('catches up in one call, over more snapshots than one step loads', async () => {
    const database = await open(migrateKcore)
    const sqlStore = createKcoreStore(database, { trendReadModel: false })
    await sqlStore.migrate()
    const model = createTrendReadModel(database.db as never)
    try {
      const dates = Array.from({ length: 13 }, (_, i) => `${2001 + i}-01-01`)
      for (const [i, date] of dates.entries()) {
        await sqlStore.ingest({
          ipVersion: 'ipv4',
          date,
          decomposition: decomposition([[701, i]]),
          linkCount: 1,
        })
      }
      const revision = (await sqlStore.reader()).revision
      expect(model.view(revision, 'ipv4', [701])).toBeUndefined()
      await Promise.all([model.catchUp(), model.advance(), model.catchUp()])
      const view = model.view(revision, 'ipv4', [701])
      expect(view?.trends.get(701)?.map((p) => p.date)).toEqual(dates)
    } finally {
      await database.close()
    }
  })

  it('answers from SQL without waiting for the model step it starts, which a close ends cleanly', async () => {
    const database = await open()
    // Holds the model step's listing (the read's own statements pass) until `release()`.
    let held: (() => void) | undefined
    let gate: Promise<void> | undefined
    const stepQueries = new Set<unknown>()
    const gated = Object.create(database, {
      db: {
        value: database.db.withPlugin({
          transformQuery({ node, queryId }) {
            const text = node.kind === 'RawNode' ? node.sqlFragments.join('') : ''
            if (text.includes('from kcore_revision r left join kcore_snapshot n')) {
              stepQueries.add(queryId)
            }
            return node
          },
          async transformResult({ queryId, result }) {
            if (stepQueries.has(queryId) && gate) await gate
            return result
          },
        }),
      },
    }) as typeof database
    const store = createKcoreStore(gated)
    await store.migrate()
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      for (const [i, date] of ['2001-01-01', '2002-01-01', '2003-01-01'].entries()) {
        await store.ingest({
          ipVersion: 'ipv4',
          date,
          decomposition: decomposition([[701, i + 1]]),
          linkCount: 1,
        })
      }
      gate = new Promise<void>((resolve) => (held = resolve))
      const read = (await store.reader()).trends('ipv4', [701])
      const answered = await Promise.race([
        read.then((view) => view.trends.get(701)!.map((p) => p.shell_index)),
        new Promise((resolve) => setTimeout(() => resolve('waited for the step'), 3000)),
      ])
      expect(answered).toEqual([1, 2, 3])
      // The step it started is still held at its listing; a close meanwhile ends (PostgreSQL's
      // pool once the step releases its connection), and the step's failure stays its own.
      for (let i = 0; i < 200 && stepQueries.size === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      expect(stepQueries.size).toBe(1)
      let closed = false
      const closing = database.close().then(() => (closed = true))
      await new Promise((resolve) => setTimeout(resolve, 50))
      held!()
      await closing
      expect(closed).toBe(true)
      await new Promise((resolve) => setImmediate(resolve))
      expect(unhandled).toEqual([])
    } finally {
      held?.()
      process.off('unhandledRejection', onUnhandled)
      await database.close().catch(() => {})
    }
  })

  it("sees another connection's ingest on the next read (the revision, not time)", async () => {
    const database = await open(migrateKcore)
    const reader = createKcoreStore(database)
    await reader.migrate()
    const other = await secondConnection(database)
    const writer = createKcoreStore(other, { trendReadModel: false })
    try {
      const ingest = (date: string, shell: number) =>
        writer.ingest({
          ipVersion: 'ipv4',
          date,
          decomposition: decomposition([
            [701, shell],
            [3356, 1],
          ]),
          linkCount: 1,
        })
      await ingest('2001-01-01', 1)
      // Enough reads for the model to catch up and answer from memory.
      for (let i = 0; i < 5; i++) await (await reader.reader()).trends('ipv4', [701])
      await ingest('2001-01-01', 2)
      await ingest('2002-01-01', 3)
      const points = (await (await reader.reader()).trends('ipv4', [701])).trends.get(701)!
      expect(points.map((p) => [p.date, p.shell_index])).toEqual([
        ['2001-01-01', 2],
        ['2002-01-01', 3],
      ])

      // A reader answers at its revision from the model: one opened before an ingest still
      // answers as before it (its ETag's data); a reader opened after sees the ingest, from SQL
      // while the model catches up, then from the model.
      for (let i = 0; i < 5; i++) await (await reader.reader()).trends('ipv4', [701])
      const pinned = await reader.reader()
      const shells = async (at: KcoreReader) =>
        (await at.trends('ipv4', [701])).trends.get(701)!.map((p) => p.shell_index)
      expect(await shells(pinned)).toEqual([2, 3])
      await ingest('2003-01-01', 4)
      expect(await shells(pinned)).toEqual([2, 3])
      for (let i = 0; i < 5; i++) expect(await shells(await reader.reader())).toEqual([2, 3, 4])
    } finally {
      await other.close()
      await database.close()
    }
  })
})
