import { createCalStore } from '@cal/store'
import type { Database } from '@kcore/db'
import { secondConnection, testDatabases } from '@kcore/db/testing'
import { createKcoreStore } from '@kcore/store'
import type { KyselyPlugin } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHandler, type Handler } from '../src/index.js'

// Each request reads the data revision once, through the one reader the core opens for it, and
// what any reader answers (memoized or not) is never older than a write committed before the
// request began, also when the write came through another connection pool (another process).

const TOKEN = 'one-reader-token'

/**
 * The revision reads of both stores, as they send them: `@cal/store`'s `queryRevision`, and
 * `@kcore/store`'s `queryRevisionState` (the revision with the snapshot count).
 */
const REVISION_READ =
  /^select "n" from "cal_revision"$|^select \(select r\.revision::text .* from kcore_revision r\) as state$/s

/** `database` with every statement's SQL recorded (a Kysely plugin on its query builder). */
function recorded(database: Database) {
  const statements: string[] = []
  const executor = database.db.getExecutor()
  const plugin: KyselyPlugin = {
    transformQuery({ node, queryId }) {
      statements.push(executor.compileQuery(node, queryId).sql.trim())
      return node
    },
    transformResult: async ({ result }) => result,
  }
  const counting: Database = { ...database, db: database.db.withPlugin(plugin) }
  const revisionReads = () => statements.filter((s) => REVISION_READ.test(s)).length
  return { database: counting, statements, revisionReads }
}

function decomposition(pairs: [number, number][]) {
  const asns = Uint32Array.from(pairs, ([asn]) => asn)
  const shells = Uint32Array.from(pairs, ([, shell]) => shell)
  return { asns, shells, maxShell: Math.max(0, ...shells) }
}

describe.each(testDatabases())('one reader per request on $name', ({ name, open }) => {
  let raw: Database
  let writerDb: Database
  let handler: Handler
  let counted: ReturnType<typeof recorded>
  const kcore = { store: undefined as unknown as ReturnType<typeof createKcoreStore> }
  let calWriter: ReturnType<typeof createCalStore>
  let kcoreWriter: ReturnType<typeof createKcoreStore>

  beforeAll(async () => {
    raw = await open()
    counted = recorded(raw)
    kcore.store = createKcoreStore(counted.database)
    const cal = createCalStore(counted.database)
    await kcore.store.migrate()
    await cal.migrate()
    writerDb = await secondConnection(raw)
    kcoreWriter = createKcoreStore(writerDb, { trendReadModel: false })
    calWriter = createCalStore(writerDb)
    handler = createHandler({
      kcore: { store: kcore.store, version: 'test' },
      cal: { store: cal, tokens: [TOKEN], timezone: 'UTC', now: () => new Date() },
      explorer: false,
    })
  })
  afterAll(async () => {
    await handler?.close()
    if (writerDb !== raw) await writerDb?.close()
    await raw?.close()
  })

  const get = async (path: string) => {
    const res = await handler(new Request(`http://localhost${path}`))
    return { status: res.status, body: await res.json(), etag: res.headers.get('etag') }
  }
  const ingest = (date: string, shell: number) =>
    kcoreWriter.ingest({
      ipVersion: 'ipv4',
      date,
      decomposition: decomposition([
        [64500, shell],
        [64501, 1],
      ]),
      linkCount: 1,
    })

  it('reads the revision once per request on PostgreSQL, and not at all on PGlite while nothing is written', async () => {
    await ingest('2020-01-01', 1)
    await calWriter.events.create({
      title: 'Counted',
      start: new Date('2030-01-01T10:00:00Z'),
      end: new Date('2030-01-01T11:00:00Z'),
    })
    const paths = [
      '/api/trends/64500',
      '/api/trends/64501?start_date=2019-01-01',
      '/api/summary',
      '/api/snapshots/2020-01-01/distribution',
      '/cal/events/v1/events?start_date=2029-01-01&end_date=2035-01-01',
      '/cal/events/v1/events?start_date=2029-01-01&end_date=2035-01-01&per_page=5',
    ]
    // Warm: models loaded, PGlite's revision kept after its first read.
    for (const path of paths) expect((await get(path)).status, path).toBe(200)
    for (const path of paths) {
      for (let i = 0; i < 3; i++) {
        const before = counted.revisionReads()
        const answer = await get(path)
        expect(answer.status, path).toBe(200)
        expect(answer.etag, path).toMatch(/^"[0-9a-f]{32}"$/)
        const reads = counted.revisionReads() - before
        expect(reads, `${path}: ${counted.statements.slice(-5).join(' ; ')}`).toBe(
          name === 'postgres' ? 1 : 0,
        )
      }
    }
  })

  it('never answers older than a write committed before the request, written through another pool', async () => {
    const seed = Date.now()
    let shell = 1
    for (let round = 0; round < 8; round++) {
      // k-core: a new snapshot of AS64500 with a new shell index, then the trend must show it.
      shell++
      const date = `${2021 + round}-01-01`
      await ingest(date, shell)
      const trend = await get('/api/trends/64500')
      expect(trend.status).toBe(200)
      const last = trend.body.trend_data.at(-1)
      expect([last.date, last.shell_index], `seed ${seed}, round ${round}`).toEqual([date, shell])
      // And a repeated request (a memo hit) still answers it.
      expect((await get('/api/trends/64500')).body).toEqual(trend.body)

      // calendar: an event created through the other pool is in the next list.
      const before = (await get('/cal/events/v1/events?start_date=2029-01-01&end_date=2035-01-01'))
        .body.total
      await calWriter.events.create({
        title: `Round ${round}`,
        start: new Date(Date.UTC(2030, 1, 1 + round, 10)),
        end: new Date(Date.UTC(2030, 1, 1 + round, 11)),
      })
      const after = await get('/cal/events/v1/events?start_date=2029-01-01&end_date=2035-01-01')
      expect(after.body.total, `seed ${seed}, round ${round}`).toBe(before + 1)
      expect(after.body.events.map((e: { title: string }) => e.title)).toContain(`Round ${round}`)
    }
  })
})
