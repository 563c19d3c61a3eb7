import { testDatabases } from '@kcore/db/testing'
import { ingestFile } from '@kcore/store'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Handler } from '../src/index.js'
import {
  caidaFile,
  caller,
  clearStore,
  expectedShell,
  kcoreHandler,
  openStore,
  type TestStore,
} from './kcore-helpers.js'

// Real files, re-dated where needed: ipv4 1998-01, 1999-02, 2000-01; ipv6 (a re-dated IPv4
// file, the graph is what matters) 2022-06.
const IPV4 = [
  ['19980101', '1998-01-01'],
  ['19990201', '1999-02-01'],
  ['20000101', '2000-01-01'],
] as const

describe.each(testDatabases())('k-core read endpoints on $name', ({ open }) => {
  let store: TestStore
  let handler: Handler
  let call: ReturnType<typeof caller>

  beforeAll(async () => {
    store = await openStore(open)
    for (const [file, date] of IPV4) await ingestFile(store, caidaFile(file), { date })
    await ingestFile(store, caidaFile('19980101'), { ipVersion: 'ipv6', date: '2022-06-01' })
    handler = kcoreHandler(store)
    call = caller(handler)
  })
  afterAll(async () => {
    await handler?.close()
    await store?.database.close()
  })

  it('reports health with version, data status and dialect', async () => {
    const res = await call('/api/health')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.body).toEqual({
      status: 'healthy',
      version: '9.9.9-test',
      data_status: 'available',
      database: { status: 'healthy', connection: 'ok', dialect: store.database.dialect },
    })
  })

  it('summarises each version with data', async () => {
    const res = await call('/api/summary')
    expect(res.status).toBe(200)
    // `breaks` (the data breaks table) was added beside the versions; see summary-breaks.test.ts.
    expect(Object.keys(res.body).sort()).toEqual(['breaks', 'ipv4', 'ipv6'])
    expect(res.body.ipv4).toMatchObject({
      snapshot_count: 3,
      date_range: ['1998-01-01', '2000-01-01'],
    })
    // 2000-01 has 6,518 ASes and is a superset-ish of older years: at least that many in total
    expect(res.body.ipv4.total_asns).toBeGreaterThanOrEqual(6_518)
    const maxes = await Promise.all(IPV4.map(([f]) => expectedShell(caidaFile(f), 1)))
    expect(res.body.ipv4.max_shell_index).toBe(Math.max(...maxes.map((m) => m.max)))
    expect(res.body.ipv6).toMatchObject({
      snapshot_count: 1,
      date_range: ['2022-06-01', '2022-06-01'],
      total_asns: 3_233,
    })
  })

  it('lists snapshots oldest first, one or both versions', async () => {
    const both = await call('/api/snapshots')
    expect(both.status).toBe(200)
    expect(both.body.ipv4.map((s: { date: string }) => s.date)).toEqual(IPV4.map(([, d]) => d))
    expect(both.body.ipv4[0]).toMatchObject({ date: '1998-01-01', unique_asns: 3_233 })
    expect(both.body.ipv4[0]).toHaveProperty('max_shell_index')
    expect(both.body.ipv6).toHaveLength(1)
    const v6 = await call('/api/snapshots?ip_version=ipv6')
    expect(Object.keys(v6.body)).toEqual(['ipv6'])
    const bad = await call('/api/snapshots?ip_version=ipv5')
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({
      error: 'invalid_ip_version',
      status: 400,
      details: [{ path: 'ip_version' }],
    })
  })

  it('serves a single-ASN trend equal to graphology-cores on the same files', async () => {
    const res = await call('/api/trends/701')
    expect(res.status).toBe(200)
    expect(res.body.asn).toBe(701)
    expect(res.body.ip_version).toBe('ipv4')
    expect(res.body.date_range).toEqual({ start: '1998-01-01', end: '2000-01-01' })
    const expected = []
    for (const [file, date] of IPV4) {
      const { shell, max } = await expectedShell(caidaFile(file), 701)
      expected.push({
        date,
        shell_index: shell,
        max_shell_index: max,
        normalized_shell_index: (shell ?? 0) / max,
      })
    }
    expect(res.body.trend_data).toEqual(expected)
  })

  it('applies requested dates and reports the range used', async () => {
    const res = await call('/api/trends/701?start_date=1999-01-01')
    expect(res.body.date_range).toEqual({ start: '1999-01-01', end: '2000-01-01' })
    expect(res.body.trend_data.map((p: { date: string }) => p.date)).toEqual([
      '1999-02-01',
      '2000-01-01',
    ])
    const end = await call('/api/trends/701?end_date=1999-02-01&start_date=1999-02-01')
    expect(end.body.date_range).toEqual({ start: '1999-02-01', end: '1999-02-01' })
    expect(end.body.trend_data).toHaveLength(1)
    const none = await call('/api/trends/701?start_date=2010-01-01&end_date=2011-01-01')
    expect(none.status).toBe(200)
    expect(none.body.trend_data).toEqual([])
  })

  it('serves ipv6 on request and 404s an ASN that has no data in that version', async () => {
    const v6 = await call('/api/trends/701?ip_version=ipv6')
    expect(v6.status).toBe(200)
    expect(v6.body.ip_version).toBe('ipv6')
    expect(v6.body.trend_data.map((p: { date: string }) => p.date)).toEqual(['2022-06-01'])
    const missing = await call('/api/trends/4294967295')
    expect(missing.status).toBe(404)
    expect(missing.body).toMatchObject({ error: 'asn_not_found', status: 404 })
    expect(missing.body.message).toContain('4294967295')
  })

  it('omits snapshots in which the AS does not appear', async () => {
    // an AS present in 2000 but not in 1998: find one from the files themselves
    const { shell: in1998 } = await expectedShell(caidaFile('19980101'), 7018)
    const res = await call('/api/trends/7018')
    const dates = res.body.trend_data.map((p: { date: string }) => p.date)
    expect(dates.includes('1998-01-01')).toBe(in1998 !== undefined)
  })

  it.each([
    ['abc'],
    ['-1'],
    ['12.5'],
    ['1e3'],
    ['4294967296'],
    ['99999999999'],
    ['%20'],
    ['+5'],
    ['0x10'],
  ])('refuses ASN %s with 400 invalid_asn', async (asn) => {
    const res = await call(`/api/trends/${asn}`)
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ error: 'invalid_asn', details: [{ path: 'asn' }] })
  })

  it('accepts ASN 0 and the largest ASN as valid input', async () => {
    expect((await call('/api/trends/0')).status).toBe(404)
    expect((await call('/api/trends/4294967295')).status).toBe(404)
  })

  it.each([
    ['ip_version=ipv5', 'invalid_ip_version', 'ip_version'],
    ['ip_version=IPV4', 'invalid_ip_version', 'ip_version'],
    ['start_date=2023-02-30', 'invalid_date', 'start_date'],
    ['end_date=2023-13-01', 'invalid_date', 'end_date'],
    ['start_date=1999-1-1', 'invalid_date', 'start_date'],
    ['start_date=yesterday', 'invalid_date', 'start_date'],
    ['start_date=2000-01-01&end_date=1999-01-01', 'invalid_date_range', 'start_date'],
    ['start_date=a&ip_version=b', 'invalid_request', 'ip_version'],
  ])('refuses %s with 400 %s', async (query, code, path) => {
    const res = await call(`/api/trends/701?${query}`)
    expect(res.status).toBe(400)
    expect(res.body.error).toBe(code)
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path)
    expect(res.body.details.every((d: { message: string }) => d.message.length > 0)).toBe(true)
  })

  it('accepts a leap day and ignores unknown query parameters', async () => {
    const res = await call('/api/trends/701?start_date=2000-02-29&foo=bar')
    expect(res.status).toBe(200)
    expect(res.body.date_range.start).toBe('2000-02-29')
  })

  it('serves several ASNs, deduplicated in first order, never 404', async () => {
    const res = await call('/api/trends', {
      method: 'POST',
      json: { asns: [701, 1, 701, 4294967295], start_date: '1999-01-01' },
    })
    expect(res.status).toBe(200)
    expect(res.body.asns).toEqual([701, 1, 4294967295])
    expect(res.body.ip_version).toBe('ipv4')
    expect(res.body.date_range).toEqual({ start: '1999-01-01', end: '2000-01-01' })
    expect(Object.keys(res.body.trend_data).sort()).toEqual(['1', '4294967295', '701'])
    expect(res.body.trend_data['4294967295']).toEqual([])
    const single = await call('/api/trends/701?start_date=1999-01-01')
    expect(res.body.trend_data['701']).toEqual(single.body.trend_data)
  })

  it('accepts 100 distinct ASNs (after removing duplicates) and refuses 101', async () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1)
    const ok = await call('/api/trends', {
      method: 'POST',
      json: { asns: [...hundred, ...hundred], ip_version: 'ipv6' },
    })
    expect(ok.status).toBe(200)
    expect(ok.body.asns).toHaveLength(100)
    const tooMany = await call('/api/trends', {
      method: 'POST',
      json: { asns: [...hundred, 101] },
    })
    expect(tooMany.status).toBe(400)
    expect(tooMany.body).toMatchObject({ error: 'invalid_asn', details: [{ path: 'asns' }] })
  })

  it.each([
    [{}, 'invalid_asn'],
    [{ asns: [] }, 'invalid_asn'],
    [{ asns: 'all' }, 'invalid_asn'],
    [{ asns: [12.5] }, 'invalid_asn'],
    [{ asns: [-1] }, 'invalid_asn'],
    [{ asns: ['701'] }, 'invalid_asn'],
    [{ asns: [4294967296] }, 'invalid_asn'],
    [{ asns: [701], ip_version: 'ipv7' }, 'invalid_ip_version'],
    [{ asns: [701], start_date: '2023-02-29' }, 'invalid_date'],
    [{ asns: [701], start_date: '2001-01-01', end_date: '2000-01-01' }, 'invalid_date_range'],
    [{ asns: [701], ip_version: 4 }, 'invalid_ip_version'],
    [[701], 'invalid_request'],
    [null, 'invalid_request'],
  ])('refuses body %j with 400 %s', async (json, code) => {
    const res = await call('/api/trends', { method: 'POST', json })
    expect(res.status).toBe(400)
    expect(res.body.error).toBe(code)
    expect(res.body.details.length).toBeGreaterThan(0)
  })

  it('refuses an empty, malformed, non-JSON or oversized body', async () => {
    const empty = await call('/api/trends', { method: 'POST' })
    expect(empty.status).toBe(400)
    expect(empty.body.error).toBe('invalid_request')
    const broken = await call('/api/trends', {
      method: 'POST',
      body: '{"asns": [701',
      headers: { 'content-type': 'application/json' },
    })
    expect(broken.status).toBe(400)
    expect(broken.body.error).toBe('invalid_json')
    const text = await call('/api/trends', {
      method: 'POST',
      body: '{"asns": [701]}',
      headers: { 'content-type': 'text/plain' },
    })
    expect(text.status).toBe(415)
    expect(text.body.error).toBe('unsupported_media_type')
    const big = await call('/api/trends', {
      method: 'POST',
      body: JSON.stringify({ asns: [701], pad: 'x'.repeat(1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    })
    expect(big.status).toBe(413)
    expect(big.body.error).toBe('payload_too_large')
  })

  it('answers 404 for unknown routes and 405 with Allow for known paths', async () => {
    const unknown = await call('/api/nothing')
    expect(unknown.status).toBe(404)
    expect(unknown.body).toMatchObject({ error: 'not_found', status: 404 })
    expect((await call('/api/trends/701/extra')).status).toBe(404)
    const put = await call('/api/trends/701', { method: 'PUT' })
    expect(put.status).toBe(405)
    expect(put.body.error).toBe('method_not_allowed')
    expect(put.headers.get('allow')).toBe('GET, HEAD')
    const getRefresh = await call('/api/refresh')
    expect(getRefresh.status).toBe(405)
    expect(getRefresh.headers.get('allow')).toBe('POST')
    const deleteTrends = await call('/api/trends', { method: 'DELETE' })
    expect(deleteTrends.headers.get('allow')).toBe('POST')
  })

  it('answers HEAD like GET without a body', async () => {
    const res = await handler(new Request('http://localhost/api/health', { method: 'HEAD' }))
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('')
  })

  it('publishes an OpenAPI 3.1 document built from the route schemas', async () => {
    const res = await call('/api/openapi.json')
    expect(res.status).toBe(200)
    const doc = res.body
    expect(doc.openapi).toBe('3.1.0')
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/api/asns',
      '/api/asns/{asn}',
      '/api/health',
      '/api/movers',
      '/api/openapi.json',
      '/api/refresh',
      '/api/scheduler/status',
      '/api/scheduler/update',
      '/api/snapshots',
      '/api/snapshots/{date}',
      '/api/snapshots/{date}/core',
      '/api/snapshots/{date}/distribution',
      '/api/snapshots/{date}/shells',
      '/api/summary',
      '/api/trends',
      '/api/trends/{asn}',
      '/api/what-if',
      '/api/what-if/history',
    ])
    const single = doc.paths['/api/trends/{asn}'].get
    expect(single.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      'asn',
      'end_date',
      'ip_version',
      'start_date',
    ])
    expect(single.responses['200'].content['application/json'].schema.properties).toHaveProperty(
      'trend_data',
    )
    const multi = doc.paths['/api/trends'].post.requestBody.content['application/json'].schema
    expect(multi.required).toContain('asns')
    const refresh = doc.paths['/api/refresh'].post
    expect(refresh.requestBody).toBeDefined()
    expect(refresh.security).toEqual([{}, { adminToken: [] }])
  })
})

describe.each(testDatabases())('trend answers and stored data on $name', ({ open }) => {
  it('follows data stored behind its back (revalidated) and by its own refreshes', async () => {
    const store = await openStore(open)
    const handler = kcoreHandler(store)
    const call = caller(handler)
    try {
      await ingestFile(store, caidaFile('19980101'), { date: '1998-01-01' })
      expect((await call('/api/trends/701')).body.trend_data).toHaveLength(1)
      await ingestFile(store, caidaFile('19990201'), { date: '1999-02-01' })
      const after = await call('/api/trends/701')
      expect(after.body.trend_data).toHaveLength(2)
      expect(after.body.date_range.end).toBe('1999-02-01')
      const multi = await call('/api/trends', { method: 'POST', json: { asns: [701] } })
      expect(multi.body.trend_data['701']).toHaveLength(2)
      await clearStore(store)
      expect((await call('/api/trends/701')).status).toBe(404)
    } finally {
      await handler.close()
      await store.database.close()
    }
  })
})

describe.each(testDatabases())('k-core health and empty data on $name', ({ open }) => {
  it('reports empty data, then 503 once the database is closed', async () => {
    const store = await openStore(open)
    const handler = kcoreHandler(store)
    const call = caller(handler)
    try {
      await clearStore(store)
      const empty = await call('/api/health')
      expect(empty.body).toMatchObject({ status: 'healthy', data_status: 'empty' })
      expect(Object.keys((await call('/api/summary')).body)).toEqual(['breaks'])
      expect((await call('/api/snapshots')).body).toEqual({ ipv4: [], ipv6: [] })
      expect((await call('/api/snapshots?ip_version=ipv4')).body).toEqual({ ipv4: [] })
      const trend = await call('/api/trends/701')
      expect(trend.status).toBe(404)
      const multi = await call('/api/trends', { method: 'POST', json: { asns: [701] } })
      expect(multi.status).toBe(200)
      expect(multi.body.date_range).toEqual({ start: null, end: null })
      expect(multi.body.trend_data).toEqual({ '701': [] })
    } finally {
      await store.database.close()
    }
    const down = await call('/api/health')
    expect(down.status).toBe(503)
    expect(down.body).toEqual({
      status: 'unhealthy',
      version: '9.9.9-test',
      data_status: 'unknown',
      database: { status: 'unhealthy', connection: 'error', dialect: store.database.dialect },
    })
    await handler.close()
  })
})
