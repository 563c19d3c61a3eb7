import { createCalStore } from '@cal/store'
import { testDatabases } from '@kcore/db/testing'
import { ingestFile, type KcoreStore } from '@kcore/store'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHandler, type Handler } from '../src/index.js'
import { caidaFile, emptyProvider, openStore } from './kcore-helpers.js'

const TOKEN = 'edge-token-41b9'
const PUBLIC = 'https://events.example.org'
const EVIL = 'evil.example'

/** Every GET path of both OpenAPI documents, with sample values for path parameters. */
async function documentedGetPaths(handler: Handler): Promise<string[]> {
  const paths: string[] = []
  for (const doc of ['/api/openapi.json', '/cal/events/v1/doc']) {
    const spec = await (await handler(new Request(`http://x${doc}`))).json()
    for (const [path, ops] of Object.entries(spec.paths as Record<string, object>)) {
      if (!('get' in ops)) continue
      const base = doc.startsWith('/api') ? '' : '/cal/events/v1'
      const full = path.startsWith(base) ? path : `${base}${path}`
      paths.push(full.replace(/\{[^}]+\}/g, (m) => (m.includes('asn') ? '3356' : '1')))
    }
  }
  return paths
}

describe.each(testDatabases())('HTTP edges on $name', ({ open }) => {
  let store: KcoreStore
  let handler: Handler
  const call = (path: string, init: RequestInit = {}) =>
    handler(new Request(`http://${EVIL}:9${path}`, init))

  beforeAll(async () => {
    store = await openStore(open)
    await ingestFile(store, caidaFile('19980101'), { date: '1998-01-01' })
    const cal = createCalStore(store.database)
    await cal.migrate()
    handler = createHandler({
      kcore: {
        store,
        provider: emptyProvider,
        version: '0.0.0',
        adminToken: TOKEN,
        scheduler: { enabled: false, schedule: '0 6 * * *' },
      },
      cal: { store: cal, tokens: [TOKEN], timezone: 'UTC' },
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
    for (const path of await documentedGetPaths(handler)) {
      const get = await call(path)
      const getBody = new Uint8Array(await get.arrayBuffer())
      const head = await call(path, { method: 'HEAD' })
      expect(head.status, path).toBe(get.status)
      expect([...head.headers], path).toEqual([...get.headers])
      expect(head.headers.get('content-length'), path).toBe(String(getBody.byteLength))
      expect(head.headers.get('x-content-type-options'), path).toBe('nosniff')
      expect(head.body, path).toBeNull()
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
})
