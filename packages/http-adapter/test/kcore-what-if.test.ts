import { readFile } from 'node:fs/promises'
import { testDatabases } from '@kcore/db/testing'
import {
  type AsGraph,
  coreDecomposition,
  type GraphChange,
  parseAsRel,
  type WhatIfResult,
  whatIf,
} from '@kcore/engine'
import { ingestFile, type KcoreStore, type SnapshotGraphEntry } from '@kcore/store'
import { FIXTURE } from '@kcore/store/testing'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { Handler } from '../src/index.js'
import { whatIfHistoryLineSchema, whatIfSchema } from '../src/kcore/what-if-schemas.js'
import { caidaFile, caller, kcoreHandler, openStore, type TestStore } from './kcore-helpers.js'

/** A file's graph, parsed on this thread (independent of the store). */
const parsed = async (path: string) => parseAsRel(new Uint8Array(await readFile(path)))

/** What `POST /api/what-if` answers for `change` on `graph`, computed by the engine alone. */
function expectedAnswer(graph: AsGraph, change: GraphChange, date: string) {
  return answerOf(whatIf(graph, change), date)
}

function answerOf(result: WhatIfResult, date: string) {
  const { counts } = result
  return {
    date,
    ip_version: 'ipv4',
    max_shell_before: result.maxShellBefore,
    max_shell: result.maxShell,
    counts: {
      changed: counts.changed,
      removed_asns: counts.removedAsns,
      added_asns: counts.addedAsns,
      ignored_asns: counts.ignoredAsns,
      removed_links: counts.removedLinks,
      added_links: counts.addedLinks,
      ignored_links: counts.ignoredLinks,
    },
    changes: result.changes,
  }
}

/** The body's change in engine terms. */
const engineChange = (body: {
  remove_asns?: number[]
  remove_links?: [number, number][]
  add_links?: [number, number][]
}): GraphChange => ({
  removeAsns: body.remove_asns ?? [],
  removeLinks: body.remove_links ?? [],
  addLinks: body.add_links ?? [],
})

/** A link of the graph, as ASNs: the first link of node `v`. */
function linkOf(graph: AsGraph, v = 0): [number, number] {
  return [graph.asns[v]!, graph.asns[graph.neighbors[graph.offsets[v]!]!]!]
}

/** Reads an NDJSON body line by line as the client receives it. */
async function* lines(body: ReadableStream<Uint8Array>) {
  const decoder = new TextDecoder()
  let buffered = ''
  const reader = body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    buffered += decoder.decode(value, { stream: true })
    for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
      yield JSON.parse(buffered.slice(0, at))
      buffered = buffered.slice(at + 1)
    }
  }
  expect(buffered).toBe('')
}

/** A store whose `snapshotGraphs` entries are counted as the route asks for them. */
function countingStore(store: KcoreStore) {
  const counts = { entries: 0, closed: 0 }
  const counted: KcoreStore = {
    ...store,
    reader: async () => {
      const reader = await store.reader()
      return {
        ...reader,
        snapshotGraphs: (...args) =>
          (async function* (): AsyncGenerator<SnapshotGraphEntry> {
            try {
              for await (const entry of reader.snapshotGraphs(...args)) {
                counts.entries++
                yield entry
              }
            } finally {
              counts.closed++
            }
          })(),
      }
    },
  }
  return { counted, counts }
}

const FIXTURE_DATE = '2014-06-01'
const HISTORY = [
  ['19980101', '1998-01-01'],
  ['19990201', '1999-02-01'],
  ['20000101', '2000-01-01'],
  ['20010101', '2001-01-01'],
] as const

describe.each(testDatabases())('what-if over HTTP on $name', ({ open }) => {
  let store: TestStore
  let handler: Handler
  let call: ReturnType<typeof caller>
  let fixture: AsGraph
  const post = (body: unknown) => call('/api/what-if', { method: 'POST', json: body })

  beforeAll(async () => {
    store = await openStore(open)
    await ingestFile(store, FIXTURE)
    for (const [file] of HISTORY) await ingestFile(store, caidaFile(file))
    // A snapshot stored without its links (as before migration 0010).
    await store.ingest({
      ipVersion: 'ipv4',
      date: '2002-01-01',
      decomposition: coreDecomposition(await parsed(caidaFile('20020101'))),
      linkCount: (await parsed(caidaFile('20020101'))).linkCount,
    })
    fixture = await parsed(FIXTURE)
    handler = kcoreHandler(store)
    call = caller(handler)
  })
  afterAll(async () => {
    await handler?.close()
    await store?.database.close()
  })

  it('answers as whatIf on the same real graph, for every edge of the issue', async () => {
    const top = coreDecomposition(fixture)
    const topShell = Array.from(fixture.asns).filter((_, v) => top.shells[v] === top.maxShell)
    const [a, b] = linkOf(fixture)
    const bodies = [
      {}, // remove none
      { remove_asns: Array.from(fixture.asns) }, // every AS
      { remove_asns: topShell }, // the members of the top shell
      { remove_asns: [fixture.asns[0]!] },
      { remove_asns: [4_294_967_295, 7] }, // absent from the snapshot
      {
        remove_links: [
          [a, b] as [number, number],
          [b, a] as [number, number],
          [a, b] as [number, number],
        ],
      },
      { remove_links: [[a, a] as [number, number]], add_links: [[b, b] as [number, number]] }, // self-links
      { add_links: [[a, 4_000_000_000] as [number, number]] }, // an AS not in the snapshot
      { remove_asns: [a], add_links: [[a, b] as [number, number]] }, // a link to a removed AS
    ]
    for (const body of bodies) {
      const res = await post({ date: FIXTURE_DATE, ip_version: 'ipv4', ...body })
      expect(res.status, JSON.stringify(body)).toBe(200)
      expect(whatIfSchema.safeParse(res.body).success).toBe(true)
      expect(res.body).toEqual(expectedAnswer(fixture, engineChange(body), FIXTURE_DATE))
    }
  })

  it('says what each edge did, in counts', async () => {
    const [a, b] = linkOf(fixture)
    const none = await post({ date: FIXTURE_DATE })
    expect(none.body.changes).toEqual([])
    expect(none.body.max_shell).toBe(none.body.max_shell_before)
    expect(Object.values(none.body.counts)).toEqual([0, 0, 0, 0, 0, 0, 0])

    const all = await post({ date: FIXTURE_DATE, remove_asns: Array.from(fixture.asns) })
    expect(all.body.max_shell).toBe(0)
    expect(all.body.changes).toHaveLength(fixture.asns.length)
    expect(all.body.changes.every((c: { after: null }) => c.after === null)).toBe(true)

    const absent = await post({ date: FIXTURE_DATE, remove_asns: [4_294_967_295, 4_294_967_295] })
    expect(absent.body.counts).toMatchObject({ ignored_asns: 2, removed_asns: 0 })
    expect(absent.body.changes).toEqual([])

    const twice = await post({
      date: FIXTURE_DATE,
      remove_links: [
        [a, b],
        [b, a],
      ],
    })
    expect(twice.body.counts).toMatchObject({ removed_links: 1, ignored_links: 1 })

    const self = await post({ date: FIXTURE_DATE, add_links: [[a, a]] })
    expect(self.body.counts).toMatchObject({ added_links: 0, ignored_links: 1 })
    expect(self.body.changes).toEqual([])

    const unknown = await post({ date: FIXTURE_DATE, add_links: [[a, 4_000_000_000]] })
    expect(unknown.body.counts).toMatchObject({ added_asns: 1, added_links: 1 })
    expect(unknown.body.changes).toContainEqual({ asn: 4_000_000_000, before: null, after: 1 })
  })

  it('answers as whatIf on a full real snapshot (AS 701 and its links gone)', async () => {
    const graph = await parsed(caidaFile('20010101'))
    const body = { remove_asns: [701], remove_links: [linkOf(graph, 5)] }
    const res = await post({ date: '2001-01-01', ...body })
    expect(res.status).toBe(200)
    expect(res.body).toEqual(expectedAnswer(graph, engineChange(body), '2001-01-01'))
    expect(res.body.changes.length).toBeGreaterThan(0)
  })

  it('refuses too many ASNs or links, wrong types and unknown keys with a 400 JSON error', async () => {
    const asns = (n: number) => Array.from({ length: n }, (_, i) => i + 1)
    const links = (n: number) => Array.from({ length: n }, (_, i) => [i + 1, i + 2])
    const ok = await post({
      date: FIXTURE_DATE,
      remove_asns: asns(1000),
      remove_links: links(5000),
      add_links: links(5000),
    })
    expect(ok.status).toBe(200)
    const bad: unknown[] = [
      { date: FIXTURE_DATE, remove_asns: asns(1001) },
      { date: FIXTURE_DATE, remove_links: links(10_001) },
      { date: FIXTURE_DATE, remove_links: links(5001), add_links: links(5000) },
      { date: FIXTURE_DATE, remove_asns: ['174'] },
      { date: FIXTURE_DATE, remove_asns: [-1] },
      { date: FIXTURE_DATE, remove_asns: [4_294_967_296] },
      { date: FIXTURE_DATE, remove_asns: [1.5] },
      { date: FIXTURE_DATE, remove_asns: 174 },
      { date: FIXTURE_DATE, remove_links: [[1]] },
      { date: FIXTURE_DATE, remove_links: [[1, 2, 3]] },
      { date: FIXTURE_DATE, add_links: [['1', 2]] },
      { date: FIXTURE_DATE, ip_version: 'ipv5' },
      { date: '2014-13-01' },
      { date: 20140601 },
      {},
      { date: FIXTURE_DATE, remove_asn: [174] },
      [FIXTURE_DATE],
      null,
    ]
    for (const body of bad) {
      const res = await post(body)
      expect(res.status, JSON.stringify(body)?.slice(0, 80)).toBe(400)
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      expect(res.body).toMatchObject({ status: 400, error: expect.any(String) })
    }
    const typo = await post({ date: FIXTURE_DATE, remove_asn: [174] })
    expect(typo.body.message).toContain('remove_asn')
    const notJson = await call('/api/what-if', {
      method: 'POST',
      body: '{"date":',
      headers: { 'content-type': 'application/json' },
    })
    expect(notJson.status).toBe(400)
    expect(notJson.body.error).toBe('invalid_json')
    const big = await call('/api/what-if', {
      method: 'POST',
      body: JSON.stringify({ date: FIXTURE_DATE, pad: 'x'.repeat(1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    })
    expect(big.status).toBe(413)
  })

  it('answers 404 for a date not stored and 409 for a snapshot stored without links', async () => {
    const missing = await post({ date: '2014-06-02' })
    expect(missing.status).toBe(404)
    expect(missing.body.error).toBe('snapshot_not_found')
    const v6 = await post({ date: FIXTURE_DATE, ip_version: 'ipv6' })
    expect(v6.status).toBe(404)
    const noLinks = await post({ date: '2002-01-01' })
    expect(noLinks.status).toBe(409)
    expect(noLinks.body.error).toBe('snapshot_links_not_stored')
  })

  it('streams the history: a line per snapshot in date order, each the per-date answer', async () => {
    const body = { remove_asns: [701, 1239], add_links: [[701, 3356]] }
    const response = await handler(
      new Request('http://localhost/api/what-if/history', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ from: '1998-01-01', ...body }),
      }),
    )
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/)
    const got = []
    for await (const line of lines(response.body!)) got.push(line)
    expect(got.map((line) => line.date)).toEqual([
      '1998-01-01',
      '1999-02-01',
      '2000-01-01',
      '2001-01-01',
      '2002-01-01',
      FIXTURE_DATE,
    ])
    for (const line of got) {
      expect(whatIfHistoryLineSchema.safeParse(line).success).toBe(true)
      const single = await post({ date: line.date, ...body })
      if (single.status === 409) {
        expect(line).toMatchObject({ date: line.date, error: 'snapshot_links_not_stored' })
        continue
      }
      expect(line).toEqual({
        date: line.date,
        max_shell_before: single.body.max_shell_before,
        max_shell: single.body.max_shell,
        counts: single.body.counts,
        changed_asns: single.body.changes.length,
      })
    }
    const ranged = await call('/api/what-if/history', {
      method: 'POST',
      json: { from: '1999-01-01', to: '2000-12-31', remove_asns: [701] },
    })
    expect(ranged.status).toBe(200)
    const dates = String(ranged.body)
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text).date)
    expect(dates).toEqual(['1999-02-01', '2000-01-01'])
  })

  it('answers the snapshots stored when the stream began: one replaced meanwhile says so', async () => {
    const response = await handler(
      new Request('http://localhost/api/what-if/history', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ from: '1998-01-01', to: '2001-01-01', remove_asns: [701] }),
      }),
    )
    const read = lines(response.body!)
    const first = await read.next()
    expect(first.value).toMatchObject({ date: '1998-01-01', max_shell: expect.any(Number) })
    // 2001-01-01 is re-ingested (another file) before its turn comes
    await ingestFile(store, caidaFile('20000101'), { date: '2001-01-01', allowImplausible: true })
    const rest = []
    for await (const line of read) rest.push(line)
    expect(rest.map((line) => [line.date, line.error ?? null])).toEqual([
      ['1999-02-01', null],
      ['2000-01-01', null],
      ['2001-01-01', 'snapshot_replaced'],
    ])
    // the next question sees the new content
    await ingestFile(store, caidaFile('20010101'))
    const again = await call('/api/what-if/history', {
      method: 'POST',
      json: { from: '2001-01-01', to: '2001-01-01', remove_asns: [701] },
    })
    expect(again.body).toMatchObject({ date: '2001-01-01', max_shell: expect.any(Number) })
    expect(again.body.error).toBeUndefined()
  })

  it('streams no line for a range or version with no snapshot', async () => {
    for (const body of [{ ip_version: 'ipv6' }, { from: '2030-01-01' }]) {
      const res = await call('/api/what-if/history', { method: 'POST', json: body })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/)
      expect(res.body).toBeUndefined()
    }
  })

  it('refuses a bad history body with a 400 before streaming', async () => {
    for (const body of [
      { from: '2001-01-01', to: '2000-01-01' },
      { to: 'yesterday' },
      { remove_asns: Array.from({ length: 1001 }, (_, i) => i) },
      { date: FIXTURE_DATE },
    ]) {
      const res = await call('/api/what-if/history', { method: 'POST', json: body })
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.status).toBe(400)
    }
  })

  it('stops reading snapshots when the client cancels the stream or goes away', async () => {
    const { counted, counts } = countingStore(store)
    const tracked = kcoreHandler(counted)
    try {
      const history = (signal?: AbortSignal) =>
        tracked(
          new Request('http://localhost/api/what-if/history', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ remove_asns: [701] }),
            signal,
          }),
        )
      // cancelled after the first line
      const first = await history()
      const reader = first.body!.getReader()
      expect((await reader.read()).done).toBe(false)
      await reader.cancel()
      await vi.waitFor(() => expect(counts.closed).toBe(1))
      expect(counts.entries).toBeLessThan(HISTORY.length)

      // the request's signal aborts (the client disconnected)
      counts.entries = 0
      const controller = new AbortController()
      const second = await history(controller.signal)
      const reader2 = second.body!.getReader()
      expect((await reader2.read()).done).toBe(false)
      controller.abort()
      await expect(
        (async () => {
          for (;;) if ((await reader2.read()).done) return
        })(),
      ).rejects.toThrow()
      await vi.waitFor(() => expect(counts.closed).toBe(2))
      expect(counts.entries).toBeLessThan(HISTORY.length)
    } finally {
      await tracked.close()
    }
  })

  it('documents both routes in the OpenAPI document', async () => {
    const { body: doc } = await call('/api/openapi.json')
    const single = doc.paths['/api/what-if'].post
    expect(single.requestBody.content['application/json'].schema.required).toContain('date')
    expect(Object.keys(single.responses).sort()).toEqual(['200', '400', '404', '409'])
    const history = doc.paths['/api/what-if/history'].post
    expect(history.responses['200'].content).toHaveProperty('application/x-ndjson')
  })
})

const postgres = testDatabases().find((d) => d.name === 'postgres')

describe.skipIf(!postgres)('what-if while its snapshot is replaced, on PostgreSQL', () => {
  let store: TestStore
  let handler: Handler

  beforeAll(async () => {
    store = await openStore(postgres!.open)
    handler = kcoreHandler(store)
  })
  afterAll(async () => {
    await handler?.close()
    await store?.database.close()
  })

  it('answers each of 10 concurrent questions from the old graph or the new one', async () => {
    const DATE = '2013-01-01'
    const oldFile = caidaFile('20130101')
    const newFile = caidaFile('20130201')
    await ingestFile(store, oldFile)
    const body = {
      date: DATE,
      remove_asns: [3356, 174],
      remove_links: [[701, 1239]] as [number, number][],
    }
    const call = caller(handler)
    let replaced = false
    const replacing = ingestFile(store, newFile, { date: DATE }).finally(() => {
      replaced = true
    })
    // Batches of 10 at once for as long as the replacement runs (one batch at least).
    const answers = []
    do
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, () => call('/api/what-if', { method: 'POST', json: body })),
        )),
      )
    while (!replaced)
    await replacing
    // After the replacement, the database holds the new graph: the one the later answers use.
    const stored = await (await store.reader()).snapshotGraph('ipv4', DATE)
    const fresh = await parsed(newFile)
    expect(Array.from(stored.graph.neighbors)).toEqual(Array.from(fresh.neighbors))
    const before = expectedAnswer(await parsed(oldFile), engineChange(body), DATE)
    const after = expectedAnswer(fresh, engineChange(body), DATE)
    expect(before).not.toEqual(after)
    for (const answer of answers) {
      expect(answer.status).toBe(200)
      expect([before, after]).toContainEqual(answer.body)
    }
    const last = await call('/api/what-if', { method: 'POST', json: body })
    expect(last.body).toEqual(after)
  })
})
