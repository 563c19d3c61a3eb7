import { readFile } from 'node:fs/promises'
import { gzipSync } from 'node:zlib'
import { testDatabases } from '@kcore/db/testing'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  caidaFile,
  caller,
  clearStore,
  createMirror,
  fileProvider,
  gatedProvider,
  httpProvider,
  kcoreHandler,
  type Mirror,
  type MirrorServer,
  openStore,
  serveMirror,
  type TestStore,
} from './kcore-helpers.js'

const v4 = (yyyymmdd: string) => `${yyyymmdd}.as-rel.txt.bz2`
const v6 = (yyyymmdd: string) => `${yyyymmdd}.as-rel.v6-stable.txt.bz2`
const json = { 'content-type': 'application/json' }

describe.each(testDatabases())('POST /api/refresh on $name', ({ open }) => {
  let store: TestStore
  let mirror: Mirror
  let server: MirrorServer

  beforeAll(async () => {
    store = await openStore(open)
  })
  afterAll(async () => {
    await store?.database.close()
  })
  beforeEach(async () => {
    await clearStore(store)
    mirror = await createMirror()
    server = await serveMirror(mirror)
  })
  afterEach(async () => {
    await server.close()
    await mirror.remove()
  })

  it('ingests holes, out-of-order and several new months from a file:// mirror', async () => {
    const handler = kcoreHandler(store, { provider: fileProvider(mirror) })
    const call = caller(handler)
    await mirror.add(caidaFile('19980101'), v4('19980101'))
    await mirror.add(caidaFile('19990201'), v4('19980301'))
    await mirror.add(caidaFile('19980101'), v6('20220601'))

    const first = await call('/api/refresh', { method: 'POST' })
    expect(first.status).toBe(200)
    expect(first.body).toEqual({
      ipv4: {
        processed: true,
        success: true,
        snapshots_added: 2,
        processed_dates: ['1998-01-01', '1998-03-01'],
        latest_date: '1998-03-01',
      },
      ipv6: {
        processed: true,
        success: true,
        snapshots_added: 1,
        processed_dates: ['2022-06-01'],
        latest_date: '2022-06-01',
      },
    })

    // the hole (1998-02) shows up late, with two newer months
    await mirror.add(caidaFile('19990201'), v4('19980501'))
    await mirror.add(caidaFile('19980101'), v4('19980201'))
    await mirror.add(caidaFile('20000101'), v4('19980401'))
    const second = await call('/api/refresh', {
      method: 'POST',
      json: { ip_versions: ['ipv4'] },
    })
    expect(second.status).toBe(200)
    expect(Object.keys(second.body)).toEqual(['ipv4'])
    expect(second.body.ipv4).toEqual({
      processed: true,
      success: true,
      snapshots_added: 3,
      processed_dates: ['1998-02-01', '1998-04-01', '1998-05-01'],
      latest_date: '1998-05-01',
    })
    const snapshots = await call('/api/snapshots?ip_version=ipv4')
    expect(snapshots.body.ipv4.map((s: { date: string }) => s.date)).toEqual([
      '1998-01-01',
      '1998-02-01',
      '1998-03-01',
      '1998-04-01',
      '1998-05-01',
    ])
    expect(snapshots.body.ipv4[3]).toMatchObject({
      unique_asns: 6_518,
      source: v4('19980401'),
    })

    const again = await call('/api/refresh', { method: 'POST', json: {} })
    expect(again.body.ipv4).toMatchObject({ processed: true, snapshots_added: 0 })
    expect(again.body.ipv4.processed_dates).toEqual([])
    expect(again.body.ipv6).toMatchObject({ processed: true, latest_date: '2022-06-01' })
    await handler.close()
  })

  it('takes an empty body with or without a JSON content type', async () => {
    const handler = kcoreHandler(store, { provider: fileProvider(mirror) })
    const call = caller(handler)
    const bare = await call('/api/refresh', { method: 'POST', body: '' })
    expect(bare.status).toBe(200)
    expect(Object.keys(bare.body).sort()).toEqual(['ipv4', 'ipv6'])
    expect(bare.body.ipv4).toMatchObject({ processed: true, latest_date: null })
    const typed = await call('/api/refresh', { method: 'POST', body: '', headers: json })
    expect(typed.status).toBe(200)
    const dupes = await call('/api/refresh', {
      method: 'POST',
      json: { ip_versions: ['ipv6', 'ipv6'] },
    })
    expect(Object.keys(dupes.body)).toEqual(['ipv6'])
    await handler.close()
  })

  it.each([
    [{ ip_versions: ['ipv5'] }, 'invalid_ip_version'],
    [{ ip_versions: [] }, 'invalid_ip_version'],
    [{ ip_versions: 'ipv4' }, 'invalid_ip_version'],
    [['ipv4'], 'invalid_request'],
    [42, 'invalid_request'],
  ])('refuses body %j with 400 %s', async (body, code) => {
    const handler = kcoreHandler(store, { provider: fileProvider(mirror) })
    const res = await caller(handler)('/api/refresh', { method: 'POST', json: body })
    expect(res.status).toBe(400)
    expect(res.body.error).toBe(code)
    expect(res.body.details.length).toBeGreaterThan(0)
    await handler.close()
  })

  it('refuses malformed JSON, non-JSON and oversized bodies', async () => {
    const handler = kcoreHandler(store, { provider: fileProvider(mirror) })
    const call = caller(handler)
    const broken = await call('/api/refresh', { method: 'POST', body: '{', headers: json })
    expect(broken).toMatchObject({ status: 400, body: { error: 'invalid_json' } })
    const text = await call('/api/refresh', {
      method: 'POST',
      body: 'ipv4',
      headers: { 'content-type': 'text/plain' },
    })
    expect(text).toMatchObject({ status: 415, body: { error: 'unsupported_media_type' } })
    const big = await call('/api/refresh', {
      method: 'POST',
      body: `{"x":"${'y'.repeat(1024 * 1024)}"}`,
      headers: json,
    })
    expect(big).toMatchObject({ status: 413, body: { error: 'payload_too_large' } })
    await handler.close()
  })

  it('reads an http:// provider index and stores every new snapshot', async () => {
    await mirror.add(caidaFile('19980101'), v4('19980101'))
    await mirror.add(caidaFile('19990201'), v4('19990201'))
    await mirror.add(caidaFile('19980101'), v6('20220601'))
    const handler = kcoreHandler(store, { provider: httpProvider(server.url) })
    const res = await caller(handler)('/api/refresh', { method: 'POST' })
    expect(res.status).toBe(200)
    expect(res.body.ipv4).toMatchObject({
      processed: true,
      processed_dates: ['1998-01-01', '1999-02-01'],
    })
    expect(res.body.ipv6).toMatchObject({ processed: true, processed_dates: ['2022-06-01'] })
    expect(server.requests).toContain(`/serial-1/${v4('19990201')}`)
    await handler.close()
  })

  it('reports a provider failing mid-way (500, truncated bz2, malformed line) without partial snapshots', async () => {
    await mirror.add(caidaFile('19980101'), v4('19980101'))
    await mirror.add(caidaFile('19990201'), v4('19980201')) // served as HTTP 500
    const bytes = await readFile(caidaFile('20000101'))
    await mirror.write(v4('19980301'), bytes.subarray(0, Math.floor(bytes.length / 2)))
    const lines = Array.from({ length: 5_000 }, (_, i) => `${i + 1}|${i + 2}|-1`)
    lines.splice(2_500, 0, '17|eighteen|0')
    await mirror.write('19980401.as-rel.txt.gz', gzipSync(`${lines.join('\n')}\n`))
    await mirror.add(caidaFile('19990201'), v4('19980501'))
    server.failures.set(v4('19980201'), 500)

    const handler = kcoreHandler(store, { provider: httpProvider(server.url) })
    const call = caller(handler)
    const res = await call('/api/refresh', { method: 'POST', json: { ip_versions: ['ipv4'] } })
    expect(res.status).toBe(200)
    expect(res.body.ipv4).toMatchObject({
      processed: false,
      success: false,
      snapshots_added: 2,
      processed_dates: ['1998-01-01', '1998-05-01'],
      latest_date: '1998-05-01',
    })
    expect(res.body.ipv4.error).toContain('1998-02-01')
    expect(res.body.ipv4.error).toContain('1998-03-01')
    expect(res.body.ipv4.error).toContain('1998-04-01')
    const stored = await call('/api/snapshots?ip_version=ipv4')
    expect(stored.body.ipv4.map((s: { date: string }) => s.date)).toEqual([
      '1998-01-01',
      '1998-05-01',
    ])
    // ASN 1 is in every file: no point at a failed date
    const trend = await call('/api/trends/1')
    expect(trend.body.trend_data.map((p: { date: string }) => p.date)).toEqual([
      '1998-01-01',
      '1998-05-01',
    ])
    const summary = await call('/api/summary')
    expect(summary.body.ipv4.snapshot_count).toBe(2)

    // once the provider is fixed, the next refresh takes the missing months
    server.failures.clear()
    await mirror.add(caidaFile('20000101'), v4('19980301'))
    await mirror.add(caidaFile('19980101'), '19980401.as-rel.txt.gz')
    const fixed = await call('/api/refresh', { method: 'POST', json: { ip_versions: ['ipv4'] } })
    expect(fixed.body.ipv4).toMatchObject({
      processed: true,
      processed_dates: ['1998-02-01', '1998-03-01', '1998-04-01'],
      latest_date: '1998-05-01',
    })
    expect(fixed.body.ipv4.error).toBeUndefined()
    await handler.close()
  })

  it('reports an unreachable or failing listing as processed: false with HTTP 200', async () => {
    const failingIndex = kcoreHandler(store, { provider: httpProvider(`${server.url}gone/`) })
    const res = await caller(failingIndex)('/api/refresh', { method: 'POST' })
    expect(res.status).toBe(200)
    expect(res.body.ipv4).toMatchObject({ processed: false, snapshots_added: 0, latest_date: null })
    expect(res.body.ipv4.error).toMatch(/404/)
    await failingIndex.close()

    await server.close()
    const unreachable = kcoreHandler(store, { provider: httpProvider(server.url) })
    const down = await caller(unreachable)('/api/refresh', { method: 'POST' })
    expect(down.status).toBe(200)
    expect(down.body.ipv6).toMatchObject({ processed: false, success: false })
    expect(down.body.ipv6.error).toMatch(/unreachable/)
    await unreachable.close()
    server = await serveMirror(mirror) // for afterEach
  })

  it('answers 409 refresh_in_progress to a second refresh, here or from another handler', async () => {
    await mirror.add(caidaFile('19980101'), v4('19980101'))
    const gated = gatedProvider(fileProvider(mirror))
    const handler = kcoreHandler(store, { provider: gated.provider })
    const other = kcoreHandler(store, { provider: fileProvider(mirror) })
    const call = caller(handler)
    const first = call('/api/refresh', { method: 'POST' })
    await gated.listing
    const second = await call('/api/refresh', { method: 'POST' })
    expect(second.status).toBe(409)
    expect(second.body).toMatchObject({ error: 'refresh_in_progress', status: 409 })
    const update = await call('/api/scheduler/update', { method: 'POST' })
    expect(update.status).toBe(409)
    const elsewhere = await caller(other)('/api/refresh', { method: 'POST' })
    expect(elsewhere.status).toBe(409)
    expect((await call('/api/scheduler/status')).body.running).toBe(true)
    gated.release()
    const done = await first
    expect(done.status).toBe(200)
    expect(done.body.ipv4.processed_dates).toEqual(['1998-01-01'])
    expect((await call('/api/scheduler/status')).body.running).toBe(false)
    // two at once without a gate: exactly one runs
    const both = await Promise.all([
      call('/api/refresh', { method: 'POST' }),
      call('/api/refresh', { method: 'POST' }),
    ])
    expect(both.map((r) => r.status).sort()).toEqual([200, 409])
    await handler.close()
    await other.close()
  })
})

describe.each(testDatabases())('admin token on $name', ({ open }) => {
  let store: TestStore
  let mirror: Mirror
  beforeAll(async () => {
    store = await openStore(open)
    mirror = await createMirror()
  })
  afterAll(async () => {
    await store?.database.close()
    await mirror?.remove()
  })

  it('guards refresh and update with a bearer token, 401 before any body check', async () => {
    const handler = kcoreHandler(store, { provider: fileProvider(mirror), adminToken: 's3cret' })
    const call = caller(handler)
    for (const path of ['/api/refresh', '/api/scheduler/update']) {
      const missing = await call(path, { method: 'POST' })
      expect(missing.status).toBe(401)
      expect(missing.body).toMatchObject({ error: 'unauthorized', status: 401 })
      expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/)
      const wrong = await call(path, { method: 'POST', headers: { authorization: 'Bearer nope' } })
      expect(wrong.status).toBe(401)
      const basic = await call(path, {
        method: 'POST',
        headers: { authorization: 'Basic czNjcmV0' },
      })
      expect(basic.status).toBe(401)
      const ok = await call(path, { method: 'POST', headers: { authorization: 'Bearer s3cret' } })
      expect(ok.status).toBe(200)
    }
    const badBody = await call('/api/refresh', {
      method: 'POST',
      body: '{',
      headers: { 'content-type': 'application/json' },
    })
    expect(badBody.status).toBe(401)
    const authedBadBody = await call('/api/refresh', {
      method: 'POST',
      body: '{',
      headers: { 'content-type': 'application/json', authorization: 'bearer s3cret' },
    })
    expect(authedBadBody.status).toBe(400)
    for (const path of ['/api/health', '/api/summary', '/api/snapshots', '/api/scheduler/status']) {
      expect((await call(path)).status).toBe(200)
    }
    await handler.close()
  })

  it('leaves everything open without a token (or a blank one)', async () => {
    const handler = kcoreHandler(store, { provider: fileProvider(mirror), adminToken: '  ' })
    expect((await caller(handler)('/api/refresh', { method: 'POST' })).status).toBe(200)
    await handler.close()
  })
})
