import { readFile } from 'node:fs/promises'
import { testDatabases } from '@kcore/db/testing'
import { parseAsRel } from '@kcore/engine'
import { ingestFile } from '@kcore/store'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Handler } from '../src/index.js'
import { caidaFile, caller, kcoreHandler, openStore, type TestStore } from './kcore-helpers.js'

// `GET /api/trends/{asn}?ip_version=both`: IPv4 1998-01 and 1999-02, IPv6 2022-06 (the real
// 2000-01 file re-dated: the graph is what matters), so some ASNs are in one version only.
describe.each(testDatabases())('trends of both IP versions on $name', ({ open }) => {
  let store: TestStore
  let handler: Handler
  let call: ReturnType<typeof caller>
  let v4Only: number
  let v6Only: number

  beforeAll(async () => {
    store = await openStore(open)
    await ingestFile(store, caidaFile('19980101'), { date: '1998-01-01' })
    await ingestFile(store, caidaFile('19990201'), { date: '1999-02-01' })
    await ingestFile(store, caidaFile('20000101'), { ipVersion: 'ipv6', date: '2022-06-01' })
    const asns = async (file: string) =>
      new Set((await parseAsRel(await readFile(caidaFile(file)))).asns)
    const [a, b, c] = await Promise.all(['19980101', '19990201', '20000101'].map(asns))
    v4Only = [...a!].find((asn) => !c!.has(asn))!
    v6Only = [...c!].find((asn) => !a!.has(asn) && !b!.has(asn))!
    handler = kcoreHandler(store)
    call = caller(handler)
  })
  afterAll(async () => {
    await handler?.close()
    await store?.database.close()
  })

  it('keys trend_data and date_range by version, each as the single-version answer', async () => {
    const both = await call('/api/trends/701?ip_version=both')
    const v4 = await call('/api/trends/701')
    const v6 = await call('/api/trends/701?ip_version=ipv6')
    expect(both.status).toBe(200)
    expect(both.body).toEqual({
      asn: 701,
      ip_version: 'both',
      date_range: { ipv4: v4.body.date_range, ipv6: v6.body.date_range },
      trend_data: { ipv4: v4.body.trend_data, ipv6: v6.body.trend_data },
    })
    expect(both.body.trend_data.ipv4.length).toBe(2)
    expect(both.body.trend_data.ipv6.length).toBe(1)
    // The single-version answers keep their shape.
    expect(Object.keys(v4.body)).toEqual(['asn', 'ip_version', 'date_range', 'trend_data'])
    expect(Array.isArray(v4.body.trend_data)).toBe(true)
  })

  it('gives an empty list for the version an ASN is absent from', async () => {
    const four = await call(`/api/trends/${v4Only}?ip_version=both`)
    expect(four.status).toBe(200)
    expect(four.body.trend_data.ipv4.length).toBeGreaterThan(0)
    expect(four.body.trend_data.ipv6).toEqual([])
    const six = await call(`/api/trends/${v6Only}?ip_version=both`)
    expect(six.status).toBe(200)
    expect(six.body.trend_data.ipv4).toEqual([])
    expect(six.body.trend_data.ipv6.length).toBe(1)
  })

  it('404s only an ASN of neither version; bad values and dates are 400', async () => {
    const missing = await call('/api/trends/4294967295?ip_version=both')
    expect(missing.status).toBe(404)
    expect(missing.body).toMatchObject({ error: 'asn_not_found', status: 404 })
    expect(missing.body.message).toContain('4294967295')
    const empty = await call('/api/trends/701?ip_version=both&start_date=2030-01-01')
    expect(empty.status).toBe(200)
    expect(empty.body.trend_data).toEqual({ ipv4: [], ipv6: [] })
    for (const bad of ['BOTH', 'ipv4,ipv6', ''])
      expect((await call(`/api/trends/701?ip_version=${bad}`)).status).toBe(400)
    const inverted = await call(
      '/api/trends/701?ip_version=both&start_date=2001-01-01&end_date=2000-01-01',
    )
    expect(inverted.status).toBe(400)
  })

  it('answers POST /api/trends with both versions, each half the single-version answer', async () => {
    const post = (json: unknown) => call('/api/trends', { method: 'POST', json })
    const asns = [v6Only, 701, v4Only, 4294967295, 701]
    const both = await post({ asns, ip_version: 'both', start_date: '1998-01-01' })
    const v4 = await post({ asns, start_date: '1998-01-01' })
    const v6 = await post({ asns, ip_version: 'ipv6', start_date: '1998-01-01' })
    expect(both.status).toBe(200)
    expect(both.body).toEqual({
      asns: v4.body.asns,
      ip_version: 'both',
      date_range: { ipv4: v4.body.date_range, ipv6: v6.body.date_range },
      trend_data: { ipv4: v4.body.trend_data, ipv6: v6.body.trend_data },
    })
    expect(both.body.asns).toEqual([v6Only, 701, v4Only, 4294967295])
    expect(both.body.trend_data.ipv6[String(v4Only)]).toEqual([])
    expect(both.body.trend_data.ipv4[String(v6Only)]).toEqual([])
    expect(both.body.trend_data.ipv4['4294967295']).toEqual([])
    // Asked again, the same bytes (the memo keys the version in).
    expect((await post({ asns, ip_version: 'both', start_date: '1998-01-01' })).body).toEqual(
      both.body,
    )
    expect(Array.isArray(v4.body.trend_data['701'])).toBe(true)
    for (const bad of ['BOTH', ['ipv4', 'ipv6'], 4, null])
      expect((await post({ asns: [701], ip_version: bad })).status).toBe(400)
  })

  it('documents the value in the OpenAPI document', async () => {
    const doc = (await call('/api/openapi.json')).body
    const op = doc.paths['/api/trends/{asn}'].get
    const param = op.parameters.find((p: { name: string }) => p.name === 'ip_version')
    expect(JSON.stringify(param.schema)).toContain('"both"')
    expect(JSON.stringify(op.responses['200'])).toContain('both')
    const post = doc.paths['/api/trends'].post
    expect(JSON.stringify(post.requestBody)).toContain('"both"')
    expect(JSON.stringify(post.responses['200'])).toContain('both')
  })
})
