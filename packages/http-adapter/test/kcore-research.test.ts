import { readFile } from 'node:fs/promises'
import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { decomposeSnapshot, ENGINE_VERSION } from '@kcore/engine'
import { ingestFile, type KcoreStore, type ShellPage } from '@kcore/store'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Handler } from '../src/index.js'
import { caidaFile, caller, kcoreHandler, openStore, type TestStore } from './kcore-helpers.js'

/** The engine's decomposition of a real file as `Map<asn, shell>` (independent of the store). */
async function engineShells(yyyymmdd: string) {
  const { decomposition } = await decomposeSnapshot(
    new Uint8Array(await readFile(caidaFile(yyyymmdd))),
  )
  const map = new Map<number, number>()
  for (let i = 0; i < decomposition.asns.length; i++)
    map.set(decomposition.asns[i]!, decomposition.shells[i]!)
  return { map, max: decomposition.maxShell }
}

/**
 * A store whose shell-page generators are counted: opened, closed (done or returned), and the
 * pages asked of the store (a buffered body asks for every page before the client reads one).
 */
function trackingStore(store: KcoreStore) {
  const counts = { opened: 0, closed: 0, pages: 0 }
  const tracked: KcoreStore = {
    ...store,
    reader: async () => {
      const reader = await store.reader()
      return {
        ...reader,
        shellList: async (...args) => {
          const list = await reader.shellList(...args)
          return { ...list, pages: trackedPages(list.pages) }
        },
      }
    },
  }
  function trackedPages(inner: AsyncGenerator<ShellPage>): AsyncGenerator<ShellPage> {
    counts.opened++
    return (async function* () {
      try {
        for await (const page of inner as AsyncGenerator<ShellPage>) {
          counts.pages++
          yield page
        }
      } finally {
        counts.closed++
      }
    })()
  }
  return { tracked, counts }
}

/** Sessions on this database other than ours that are inside a query or a transaction. */
async function busySessions(database: Database): Promise<number> {
  if (database.dialect === 'pglite') return 0
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid()
      and state in ('active', 'idle in transaction')`.execute(database.db)
  return rows[0]!.n
}

describe.each(testDatabases())('k-core research routes on $name', ({ open }) => {
  let store: TestStore
  let handler: Handler
  let call: ReturnType<typeof caller>
  let counts: { opened: number; closed: number; pages: number }
  let feb: Awaited<ReturnType<typeof engineShells>>
  let jan: Awaited<ReturnType<typeof engineShells>>

  beforeAll(async () => {
    store = await openStore(open)
    await ingestFile(store, caidaFile('20130101'))
    await ingestFile(store, caidaFile('20130201'))
    const tracking = trackingStore(store)
    counts = tracking.counts
    handler = kcoreHandler(tracking.tracked)
    call = caller(handler)
    ;[jan, feb] = await Promise.all([engineShells('20130101'), engineShells('20130201')])
  }, 120_000)
  afterAll(async () => {
    await handler?.close()
    await store?.database.close()
  })

  it("answers a snapshot's record with provenance, a strong ETag and no-cache", async () => {
    const res = await call('/api/snapshots/2013-02-01')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      date: '2013-02-01',
      max_shell_index: 66,
      unique_asns: 43_560,
      source: '20130201.as-rel.txt.bz2',
      source_url: null,
      serial: 1,
      engine_version: ENGINE_VERSION,
    })
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/)
    expect(res.headers.get('cache-control')).toBe('no-cache')
    const again = await call('/api/snapshots/2013-02-01')
    expect(again.headers.get('etag')).toBe(res.headers.get('etag'))
    const list = await call('/api/snapshots?ip_version=ipv4')
    expect(list.body.ipv4[1]).toEqual(res.body)
  })

  it('gives every representation its own stable ETag', async () => {
    const paths = [
      '/api/snapshots/2013-02-01',
      '/api/snapshots/2013-01-01',
      '/api/snapshots/2013-02-01/core',
      '/api/snapshots/2013-02-01/core?k=10',
      '/api/snapshots/2013-02-01/core?top=10',
      '/api/snapshots/2013-02-01/distribution',
      '/api/snapshots/2013-02-01/shells?min_shell=60',
      '/api/snapshots/2013-02-01/shells?format=csv&min_shell=60',
      '/api/snapshots/2013-02-01/shells?format=ndjson&min_shell=60',
      '/api/movers?from=2013-01-01&to=2013-02-01',
      '/api/movers?from=2013-01-01&to=2013-02-01&k=10',
      '/api/asns/3356',
      '/api/asns/174',
    ]
    const tags = []
    for (const path of paths) {
      const first = await call(path)
      const second = await call(path)
      expect(first.status, path).toBe(200)
      expect(first.headers.get('cache-control'), path).toBe('no-cache')
      expect(second.headers.get('etag'), path).toBe(first.headers.get('etag'))
      tags.push(first.headers.get('etag'))
    }
    expect(new Set(tags).size).toBe(paths.length)
    for (const path of ['/api/movers?from=2013-01-01&to=2013-02-01', '/api/asns/3356']) {
      const res = await call(path)
      expect(res.headers.get('etag'), path).toMatch(/^"[0-9a-f]{32}"$/)
      expect(res.headers.get('cache-control'), path).toBe('no-cache')
      const again = await call(path, { headers: { 'if-none-match': res.headers.get('etag')! } })
      expect(again.status, path).toBe(304)
    }
  })

  it('serves the innermost core (the 66-core, 158 ASes), any k, and top-N', async () => {
    const inner = (await call('/api/snapshots/2013-02-01/core')).body
    const expected = [...feb.map].filter(([, s]) => s === 66).map(([a]) => a)
    expect(inner).toEqual({
      date: '2013-02-01',
      ip_version: 'ipv4',
      k: 66,
      max_shell_index: 66,
      count: 158,
      asns: expected.sort((a, b) => a - b),
    })
    const above = await call('/api/snapshots/2013-02-01/core?k=67')
    expect(above.status).toBe(200)
    expect(above.body).toMatchObject({ k: 67, count: 0, asns: [] })
    const far = await call('/api/snapshots/2013-02-01/core?k=999999999999999')
    expect(far.body).toMatchObject({ k: 999_999_999_999_999, count: 0 })
    for (const top of [1, 10_000]) {
      const body = (await call(`/api/snapshots/2013-02-01/core?top=${top}`)).body
      expect(body.count).toBe(top)
    }
  })

  it('serves the distribution, summing to the 43,560 ASes', async () => {
    const { body } = await call('/api/snapshots/2013-02-01/distribution')
    expect(body.shells.reduce((n: number, s: { count: number }) => n + s.count, 0)).toBe(43_560)
    expect(body).toMatchObject({ max_shell_index: 66, unique_asns: 43_560 })
    expect(body.shells.at(-1)).toEqual({ shell_index: 66, count: 158 })
  })

  it('streams the shell list as CSV that round-trips to the decomposition for every AS', async () => {
    const res = await handler(
      new Request('http://localhost/api/snapshots/2013-02-01/shells?format=csv'),
    )
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    const lines = (await res.text()).trimEnd().split('\n')
    expect(lines[0]).toBe('asn,shell_index,normalized_shell_index')
    const rows = lines.slice(1).map((line) => line.split(',').map(Number))
    expect(rows.map(([a, s]) => [a, s])).toEqual([...feb.map].sort((a, b) => a[0]! - b[0]!))
    for (const [, s, n] of rows) expect(n).toBe(s! / 66)
  })

  it('streams JSON and NDJSON with the same rows', async () => {
    const json = (await call('/api/snapshots/2013-02-01/shells?min_shell=50')).body
    const expected = [...feb.map].filter(([, s]) => s >= 50).sort((a, b) => a[0] - b[0])
    expect(json).toMatchObject({ date: '2013-02-01', ip_version: 'ipv4', max_shell_index: 66 })
    expect(json.count).toBe(expected.length)
    expect(
      json.shells.map((r: { asn: number; shell_index: number }) => [r.asn, r.shell_index]),
    ).toEqual(expected)
    const ndjson = await handler(
      new Request('http://localhost/api/snapshots/2013-02-01/shells?format=ndjson&min_shell=50'),
    )
    expect(ndjson.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8')
    const lines = (await ndjson.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines).toEqual(json.shells)
    const none = (await call('/api/snapshots/2013-02-01/shells?min_shell=67')).body
    expect(none).toEqual({
      date: '2013-02-01',
      ip_version: 'ipv4',
      max_shell_index: 66,
      count: 0,
      shells: [],
    })
  })

  it('serves movers equal to a brute-force diff of the two files', async () => {
    const { status, body } = await call('/api/movers?from=2013-01-01&to=2013-02-01&limit=3')
    expect(status).toBe(200)
    const entered = [...feb.map]
      .filter(([asn, s]) => s >= 66 && (jan.map.get(asn) ?? -1) < 66)
      .map(([asn]) => asn)
      .sort((a, b) => a - b)
    const left = [...jan.map]
      .filter(([asn, s]) => s >= 66 && (feb.map.get(asn) ?? -1) < 66)
      .map(([asn]) => asn)
      .sort((a, b) => a - b)
    expect(body.k).toBe(66)
    expect(body.entered.map((m: { asn: number }) => m.asn)).toEqual(entered)
    expect(body.left.map((m: { asn: number }) => m.asn)).toEqual(left)
    expect(body.risers).toHaveLength(3)
    const top = [...jan.map]
      .filter(([asn]) => feb.map.has(asn))
      .map(([asn, s]) => ({ asn, change: feb.map.get(asn)! / 66 - s / jan.max }))
      .sort((a, b) => b.change - a.change || a.asn - b.asn)
      .slice(0, 3)
    expect(body.risers.map((r: { asn: number; change: number }) => [r.asn, r.change])).toEqual(
      top.map((t) => [t.asn, t.change]),
    )
  })

  it('gives an AS overview, 404 for an AS in no snapshot', async () => {
    const res = await call('/api/asns/3356')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      asn: 3356,
      ipv4: { first_seen: '2013-01-01', last_seen: '2013-02-01', snapshots: 2 },
      ipv6: null,
    })
    expect(res.body.ipv4.latest.shell_index).toBe(feb.map.get(3356))
    const missing = await call('/api/asns/4294967295')
    expect(missing.status).toBe(404)
    expect(missing.body.error).toBe('asn_not_found')
  })

  it.each([
    ['/api/snapshots/2013-03-01', 404, 'snapshot_not_found'],
    ['/api/snapshots/2013-02-01?ip_version=ipv6', 404, 'snapshot_not_found'],
    ['/api/snapshots/2013-03-01/shells?format=csv', 404, 'snapshot_not_found'],
    ['/api/snapshots/2013-03-01/core', 404, 'snapshot_not_found'],
    ['/api/snapshots/2013-03-01/distribution', 404, 'snapshot_not_found'],
    ['/api/movers?from=2013-01-01&to=2099-01-01', 404, 'snapshot_not_found'],
    ['/api/movers?from=1000-01-01&to=2013-02-01', 404, 'snapshot_not_found'],
    ['/api/snapshots/2013-02-30', 400, 'invalid_date'],
    ['/api/snapshots/20130201', 400, 'invalid_date'],
    ['/api/snapshots/2013-02-01?ip_version=ipv5', 400, 'invalid_ip_version'],
    ['/api/snapshots/2013-02-01/shells?format=xml', 400, 'invalid_parameter'],
    ['/api/snapshots/2013-02-01/shells?min_shell=-1', 400, 'invalid_parameter'],
    ['/api/snapshots/2013-02-01/shells?min_shell=', 400, 'invalid_parameter'],
    ['/api/snapshots/2013-02-01/core?top=0', 400, 'invalid_parameter'],
    ['/api/snapshots/2013-02-01/core?top=10001', 400, 'invalid_parameter'],
    ['/api/snapshots/2013-02-01/core?top=1.5', 400, 'invalid_parameter'],
    ['/api/snapshots/2013-02-01/core?k=-1', 400, 'invalid_parameter'],
    ['/api/snapshots/2013-02-01/core?k=1e3', 400, 'invalid_parameter'],
    ['/api/snapshots/2013-02-01/core?k=9999999999999999', 400, 'invalid_parameter'],
    ['/api/snapshots/2013-02-01/core?k=1&top=1', 400, 'invalid_parameter'],
    ['/api/movers?from=2013-01-01', 400, 'invalid_date'],
    ['/api/movers?from=2013-01-01&to=2013-02-01&limit=0', 400, 'invalid_parameter'],
    ['/api/movers?from=2013-01-01&to=2013-02-01&limit=10001', 400, 'invalid_parameter'],
    ['/api/movers?from=2013-01-01&to=2013-02-01&k=x', 400, 'invalid_parameter'],
    ['/api/asns/4294967296', 400, 'invalid_asn'],
    ['/api/asns/-1', 400, 'invalid_asn'],
  ])('%s is %i %s', async (path, status, code) => {
    const res = await call(path)
    expect(res.status).toBe(status)
    expect(res.body).toMatchObject({ error: code, status })
  })

  it('survives a client that disconnects mid-CSV: the pages close, the database answers, nothing stays busy', async () => {
    const before = { ...counts }
    for (let round = 0; round < 5; round++) {
      const res = await handler(
        new Request('http://localhost/api/snapshots/2013-02-01/shells?format=csv'),
      )
      const reader = res.body!.getReader()
      const first = await reader.read()
      expect(first.done).toBe(false)
      await reader.read()
      await reader.cancel()
    }
    // 43,560 rows are 5 pages of 10,000: a client gone after the first rows was never sent
    // (nor was the store asked for) the rest, in any round.
    expect(counts.pages - before.pages).toBeLessThanOrEqual(5 * 2)
    expect(counts.opened - before.opened).toBe(5)
    expect(counts.closed - before.closed).toBe(5)
    expect(await busySessions(store.database)).toBe(0)
    expect(await (await store.reader()).snapshotCount()).toBe(2)
  })

  it('serves others while a slow client holds a half-read stream, then completes it', async () => {
    const pagesBefore = counts.pages
    const res = await handler(
      new Request('http://localhost/api/snapshots/2013-02-01/shells?format=csv'),
    )
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    let text = decoder.decode((await reader.read()).value, { stream: true })
    // The first bytes came before the store was asked for the last of the 5 pages.
    expect(counts.pages - pagesBefore).toBeLessThan(5)
    // Between two reads the stream holds no connection: 20 other requests get through at once.
    const others = await Promise.all(
      Array.from({ length: 20 }, () => call('/api/snapshots/2013-02-01/core')),
    )
    expect(others.every((r) => r.status === 200 && r.body.count === 158)).toBe(true)
    expect(await busySessions(store.database)).toBe(0)
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
    }
    expect(text.trimEnd().split('\n')).toHaveLength(43_561)
  })
})
