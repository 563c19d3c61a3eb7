import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createCalStore } from '@cal/store'
import { createAdaptorServer } from '@hono/node-server'
import { testDatabases } from '@kcore/db/testing'
import { ingestFile } from '@kcore/store'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { conditional } from '../src/conditional-get.js'
import { createHandler, type Handler } from '../src/index.js'
import { caidaFile, emptyProvider, openStore, type TestStore } from './kcore-helpers.js'

const TOKEN = 'edge-token-41b9'
const PUBLIC = 'https://events.example.org'
const EVIL = 'evil.example'

/** A value for a path parameter: a stored ASN, the stored snapshot's date, else an id. */
const sampleParam = (name: string) =>
  name.includes('asn') ? '3356' : name.includes('date') ? '1998-01-01' : '1'

/** Every GET path of both OpenAPI documents, with sample values for path parameters. */
async function documentedGetPaths(handler: Handler): Promise<string[]> {
  const paths: string[] = []
  for (const doc of ['/api/openapi.json', '/cal/events/v1/doc']) {
    const spec = await (await handler(new Request(`http://x${doc}`))).json()
    for (const [path, ops] of Object.entries(spec.paths as Record<string, object>)) {
      if (!('get' in ops)) continue
      const base = doc.startsWith('/api') ? '' : '/cal/events/v1'
      const full = path.startsWith(base) ? path : `${base}${path}`
      paths.push(full.replace(/\{[^}]+\}/g, sampleParam))
    }
  }
  return paths
}

describe.each(testDatabases())('HTTP edges on $name', ({ open }) => {
  let store: TestStore
  let handler: Handler
  // The default events window ends at now + 24 months, to the second, so its tag follows the
  // clock, and a list's sync token carries the second it was issued in; a test that compares
  // tags or headers across calls holds both clocks still.
  let frozen: Date | undefined
  const call = (path: string, init: RequestInit = {}) =>
    handler(new Request(`http://${EVIL}:9${path}`, init))

  beforeAll(async () => {
    store = await openStore(open)
    await ingestFile(store, caidaFile('19980101'), { date: '1998-01-01' })
    const cal = createCalStore(store.database, { now: () => frozen ?? new Date() })
    await cal.migrate()
    handler = createHandler({
      kcore: {
        store,
        provider: emptyProvider,
        version: '0.0.0',
        adminToken: TOKEN,
      },
      cal: { store: cal, tokens: [TOKEN], timezone: 'UTC', now: () => frozen ?? new Date() },
      publicUrl: PUBLIC,
    })
    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }
    const venue = await call('/cal/events/v1/venues', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ venue: 'Hall' }),
    })
    expect(venue.status).toBe(201)
    for (let i = 0; i < 3; i++) {
      const created = await call('/cal/events/v1/events', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          title: `E${i}`,
          start_date: '2030-01-0' + (i + 1) + ' 10:00:00',
          end_date: '2030-01-0' + (i + 1) + ' 11:00:00',
        }),
      })
      expect(created.status).toBe(201)
      expect(created.headers.get('location')).toMatch(/^https:\/\/events\.example\.org\//)
    }
  })
  afterAll(async () => {
    await handler.close()
    await store.database.close()
  })

  it('never lets the Host header into a body or a header', async () => {
    for (const path of [
      ...(await documentedGetPaths(handler)),
      '/cal/events/v1/events?per_page=1&start_date=2000-01-01&end_date=2031-01-01',
      '/cal/events/v1/events?per_page=1&start_date=2000-01-01&end_date=2031-01-01&page=2',
      '/cal/events/v1/',
    ]) {
      const res = await call(path, { headers: { host: EVIL } })
      const text = await res.text()
      expect(text, path).not.toContain(EVIL)
      for (const [name, value] of res.headers) expect(`${name}: ${value}`, path).not.toContain(EVIL)
    }
    const list = await (
      await call('/cal/events/v1/events?per_page=1&start_date=2000-01-01&end_date=2031-01-01')
    ).json()
    expect(list.rest_url).toMatch(/^https:\/\/events\.example\.org\/cal\/events\/v1\/events\?/)
    expect(list.next_rest_url).toMatch(/^https:\/\/events\.example\.org\//)
    expect(list.events[0].global_id).toMatch(/^events\.example\.org\?id=\d+$/)
  })

  it('answers HEAD with exactly the GET headers and no body, on every documented GET', async () => {
    frozen = new Date()
    onTestFinished(() => {
      frozen = undefined
    })
    for (const path of await documentedGetPaths(handler)) {
      const get = await call(path)
      const getBody = new Uint8Array(await get.arrayBuffer())
      const head = await call(path, { method: 'HEAD' })
      expect(head.status, path).toBe(get.status)
      expect([...head.headers], path).toEqual([...get.headers])
      // Measured where it was made; a streamed body (the shell list) has none, HEAD neither.
      const length = get.headers.get('content-length')
      if (length !== null) expect(length, path).toBe(String(getBody.byteLength))
      expect(head.headers.get('x-content-type-options'), path).toBe('nosniff')
      expect(head.body, path).toBeNull()
    }
  })

  it('answers HEAD with the GET headers over a real server too (@hono/node-server, as the CLI serves)', async () => {
    frozen = new Date()
    onTestFinished(() => {
      frozen = undefined
    })
    const server = createAdaptorServer({ fetch: handler }) as Server
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    // Set by the connection, not by the answer.
    const own = (headers: Headers) =>
      [...headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name))
    try {
      for (const path of await documentedGetPaths(handler)) {
        const get = await fetch(base + path)
        await get.arrayBuffer()
        const head = await fetch(base + path, { method: 'HEAD' })
        expect(head.status, path).toBe(get.status)
        expect(own(head.headers), path).toEqual(
          own(get.headers).filter(([name]) => name !== 'transfer-encoding'),
        )
        expect(head.headers.get('x-content-type-options'), path).toBe('nosniff')
      }
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('clamps per_page of any size to 50 and answers the 404 for a page of any size', async () => {
    const big = fc.oneof(
      fc.constantFrom('50', '51', '999999999', '1000000000', '2147483648', '0000051'),
      fc.bigInt({ min: 51n, max: 10n ** 400n }).map(String),
    )
    await fc.assert(
      fc.asyncProperty(
        big,
        fc.constantFrom('events', 'venues', 'organizers', 'categories', 'tags'),
        async (n, list) => {
          const res = await call(
            `/cal/events/v1/${list}?per_page=${n}&start_date=2000-01-01&end_date=2031-01-01`,
          )
          expect(res.status).toBe(200)
          expect((await res.json()).rest_url).not.toMatch(/[?&]page=/)
          const page = await call(
            `/cal/events/v1/${list}?page=${n}&start_date=2000-01-01&end_date=2031-01-01`,
          )
          expect(page.status).toBe(404)
          expect((await page.json()).code).toMatch(/archive-page-not-found/)
        },
      ),
      { numRuns: 30 },
    )
    for (const bad of ['0', '-1', '1.5', '', 'x', '00']) {
      expect((await call(`/cal/events/v1/events?per_page=${bad}`)).status, bad).toBe(400)
      expect((await call(`/cal/events/v1/events?page=${bad}`)).status, bad).toBe(400)
    }
  })

  it('refuses a non-empty non-JSON body on the body-less POST, and charsets other than UTF-8', async () => {
    const post = (path: string, type: string | undefined, body: string) =>
      call(path, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, ...(type ? { 'content-type': type } : {}) },
        body,
      })
    const garbage = await post('/api/scheduler/update', 'text/plain', 'garbage')
    expect(garbage.status).toBe(415)
    expect((await garbage.json()).error).toBe('unsupported_media_type')
    for (const type of ['text/plain', undefined, 'application/json']) {
      expect((await post('/api/scheduler/update', type, '')).status, String(type)).not.toBe(415)
    }
    for (const charset of ['latin1', 'iso-8859-1', 'utf-16', 'UTF-7']) {
      const res = await post('/api/refresh', `application/json; charset=${charset}`, '{}')
      expect(res.status, charset).toBe(415)
      const cal = await post(
        '/cal/events/v1/tags',
        `application/json; charset=${charset}`,
        '{"name":"t"}',
      )
      expect(cal.status, charset).toBe(415)
    }
    const ok = await post('/cal/events/v1/tags', 'application/json; charset=UTF-8', '{"name":"ok"}')
    expect(ok.status).toBe(201)
  })

  it('round-trips ETags on the k-core reads: 200 with a tag, 304 without a body, new tag after an ingest', async () => {
    const paths = [
      '/api/trends/3356',
      '/api/trends/3356?start_date=1990-01-01&end_date=2030-01-01',
      '/api/summary',
      '/api/snapshots',
      '/api/snapshots?ip_version=ipv4',
    ]
    const tags = new Map<string, string>()
    for (const path of paths) {
      const first = await call(path)
      expect(first.status, path).toBe(200)
      const tag = first.headers.get('etag') ?? ''
      expect(tag, path).toMatch(/^"[0-9a-f]{32}"$/)
      expect(first.headers.get('cache-control'), path).toBe('no-cache')
      tags.set(path, tag)
      for (const header of [tag, `W/${tag}`, `"x", ${tag}`, '*']) {
        for (const method of ['GET', 'HEAD']) {
          const again = await call(path, { method, headers: { 'if-none-match': header } })
          expect(again.status, `${method} ${path} ${header}`).toBe(304)
          expect(again.headers.get('etag')).toBe(tag)
          expect(again.headers.get('cache-control')).toBe('no-cache')
          expect(await again.text()).toBe('')
        }
      }
      for (const header of ['"x"', tag.slice(0, -2) + '"', '', 'W/"', tag.slice(1, -1)]) {
        const miss = await call(path, { headers: { 'if-none-match': header } })
        expect(miss.status, `${path} ${header}`).toBe(200)
      }
    }
    // Distinct inputs, distinct tags.
    expect(new Set(tags.values()).size).toBe(paths.length)
    await ingestFile(store, caidaFile('19990201'), { date: '1999-02-01' })
    for (const path of paths) {
      const after = await call(path, { headers: { 'if-none-match': tags.get(path)! } })
      expect(after.status, path).toBe(200)
      expect(after.headers.get('etag'), path).not.toBe(tags.get(path))
    }
    const trend = await (await call('/api/trends/3356')).json()
    expect(trend.trend_data.map((p: { date: string }) => p.date)).toContain('1999-02-01')
  })

  it('lets any cache keep the OpenAPI documents for an hour, and 304s a route that sets its own ETag', async () => {
    for (const path of ['/api/openapi.json', '/cal/events/v1/doc', '/cal/events/v1/']) {
      expect((await call(path)).headers.get('cache-control'), path).toBe('public, max-age=3600')
    }
    const own = new Response('{}', {
      headers: { etag: '"v1"', 'cache-control': 'public, max-age=86400' },
    })
    const request = new Request('http://x/', { headers: { 'if-none-match': 'W/"v1"' } })
    const answer = conditional(request, own)
    expect(answer.status).toBe(304)
    expect(answer.headers.get('cache-control')).toBe('public, max-age=86400')
    expect(conditional(new Request('http://x/'), own).status).toBe(200)
  })

  it('gives the iCalendar feed its own strong ETag at the URL the JSON list shares, Vary: Accept', async () => {
    const path = '/cal/events/v1/events?start_date=2000-01-01&end_date=2031-01-01'
    const json = await call(path)
    const ics = await call(path, { headers: { accept: 'text/calendar' } })
    const param = await call(`${path}&format=ics`)
    expect(ics.headers.get('content-type')).toMatch(/^text\/calendar/)
    for (const res of [json, ics, param]) {
      expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/)
      expect(res.headers.get('cache-control')).toBe('no-cache')
      expect(res.headers.get('vary')).toMatch(/\bAccept\b/)
    }
    expect(ics.headers.get('etag')).not.toBe(json.headers.get('etag'))
    // The JSON list's tag does not revalidate the feed (that would hand JSON to a calendar).
    const crossed = await call(path, {
      headers: { accept: 'text/calendar', 'if-none-match': json.headers.get('etag')! },
    })
    expect(crossed.status).toBe(200)
    const same = await call(path, {
      headers: { accept: 'text/calendar', 'if-none-match': ics.headers.get('etag')! },
    })
    expect(same.status).toBe(304)
  })

  it('round-trips ETags on calendar reads, per credentials class, and never makes a token answer public', async () => {
    frozen = new Date()
    const auth = { authorization: `Bearer ${TOKEN}` }
    const listed = await (
      await call('/cal/events/v1/events?start_date=2000-01-01&end_date=2031-01-01')
    ).json()
    const eventId = listed.events[0].id
    const venueId = (await (await call('/cal/events/v1/venues')).json()).venues[0].id
    const paths = [
      '/cal/events/v1/events',
      '/cal/events/v1/events?start_date=2000-01-01&end_date=2031-01-01',
      `/cal/events/v1/events/${eventId}`,
      '/cal/events/v1/venues',
      `/cal/events/v1/venues/${venueId}`,
      '/cal/events/v1/organizers',
      '/cal/events/v1/tags',
      '/cal/events/v1/categories',
    ]
    const tags = new Map<string, string>()
    for (const path of paths) {
      const anonymous = await call(path)
      expect(anonymous.status, path).toBe(200)
      const tag = anonymous.headers.get('etag') ?? ''
      expect(tag, path).toMatch(/^"[0-9a-f]{32}"$/)
      expect(anonymous.headers.get('cache-control'), path).toBe('no-cache')
      expect(anonymous.headers.get('vary'), path).toMatch(/^Authorization/)
      const holder = await call(path, { headers: auth })
      expect(holder.headers.get('cache-control'), path).toBe('private, no-cache')
      expect(holder.headers.get('vary'), path).toMatch(/^Authorization/)
      expect(holder.headers.get('etag'), path).not.toBe(tag)
      // A holder's tag does not open the anonymous answer, nor the reverse.
      const crossed = await call(path, {
        headers: { 'if-none-match': holder.headers.get('etag')! },
      })
      expect(crossed.status, path).toBe(200)
      const again = await call(path, { headers: { 'if-none-match': tag } })
      expect(again.status, path).toBe(304)
      expect(again.headers.get('vary'), path).toMatch(/^Authorization/)
      const holderAgain = await call(path, {
        headers: { ...auth, 'if-none-match': holder.headers.get('etag')! },
      })
      expect(holderAgain.status, path).toBe(304)
      expect(holderAgain.headers.get('cache-control'), path).toBe('private, no-cache')
      tags.set(path, tag)
    }
    const write = await call('/cal/events/v1/tags', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'fresh' }),
    })
    expect(write.status).toBe(201)
    for (const path of paths) {
      const after = await call(path, { headers: { 'if-none-match': tags.get(path)! } })
      expect(after.status, path).toBe(200)
      expect(after.headers.get('etag'), path).not.toBe(tags.get(path))
    }
    // One second later the default window is another window (its end moved), an explicit one is not.
    const before = await call(paths[0]!)
    const explicit = await call(paths[1]!)
    frozen = new Date(frozen.getTime() + 1000)
    const moved = await call(paths[0]!, {
      headers: { 'if-none-match': before.headers.get('etag')! },
    })
    expect(moved.status).toBe(200)
    const kept = await call(paths[1]!, {
      headers: { 'if-none-match': explicit.headers.get('etag')! },
    })
    expect(kept.status).toBe(304)
    frozen = undefined
  })
})
