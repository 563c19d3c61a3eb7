import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ifNoneMatchHits } from './conditional-get.js'
import { HttpError } from './http-error.js'
import { jsonResponse } from './json-response.js'
import { mountApi } from './mount-api.js'
import { openApiDocument } from './openapi.js'
import { type Api, type Reader, route, routeReading } from './route.js'

const api: Api = {
  base: '/t',
  title: 'test',
  version: '1',
  errorStyle: 'plain',
  invalidInput: (part, issues) =>
    new HttpError(400, 'invalid_request', `bad ${part}`, {
      details: issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    }),
  routes: [
    route({
      method: 'GET',
      path: '/items/:id',
      summary: 'one item',
      params: z.object({ id: z.coerce.number().int() }),
      query: z.object({ q: z.string().optional() }),
      handle: ({ params, query }) => jsonResponse({ id: params.id, q: query.q ?? null }),
    }),
    route({
      method: 'POST',
      path: '/items',
      summary: 'make one',
      body: z.object({ name: z.string() }),
      handle: ({ body }) => jsonResponse(body, 201),
    }),
    route({
      method: 'GET',
      path: '/broken',
      summary: 'fails',
      handle: () => {
        throw new Error('connection refused (db)')
      },
    }),
  ],
}
let revision = 1
let runs = 0
let readersOpened = 0
api.reader = async () => {
  readersOpened++
  return { revision: String(revision) }
}
const readingRoute = routeReading<Reader>()
api.routes.push(
  readingRoute({
    method: 'GET',
    path: '/tagged/:id',
    summary: 'conditional',
    params: z.object({ id: z.string() }),
    cacheKey: ({ params }) => ({ key: params.id }),
    handle: ({ params, reader }) => {
      runs++
      if (params.id === 'gone') throw new HttpError(404, 'not_found', 'gone')
      return jsonResponse({ id: params.id, revision: reader.revision })
    },
  }),
)
const errors: unknown[] = []
const fetch = mountApi(api, (error) => errors.push(error))
const call = (path: string, init?: RequestInit) =>
  fetch(new Request(`http://x${path}`, init), 'http://x')

describe('mountApi', () => {
  it('validates params and query and passes typed values', async () => {
    const res = await call('/t/items/7?q=a&extra=1')
    expect(await res.json()).toEqual({ id: 7, q: 'a' })
    const bad = await call('/t/items/seven')
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ error: 'invalid_request', details: [{ path: 'id' }] })
  })

  it('answers 405 with Allow for a known path and 404 for an unknown one', async () => {
    const res = await call('/t/items/7', { method: 'DELETE' })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('GET, HEAD')
    expect((await call('/t/nothing')).status).toBe(404)
  })

  it('refuses non-JSON and malformed bodies with 415 and 400', async () => {
    const text = await call('/t/items', {
      method: 'POST',
      body: '{"name":"a"}',
      headers: { 'content-type': 'text/plain' },
    })
    expect(text.status).toBe(415)
    const broken = await call('/t/items', {
      method: 'POST',
      body: '{"name":',
      headers: { 'content-type': 'application/json' },
    })
    expect(broken.status).toBe(400)
    const ok = await call('/t/items', {
      method: 'POST',
      body: '{"name":"a"}',
      headers: { 'content-type': 'application/json' },
    })
    expect(ok.status).toBe(201)
  })

  it('refuses a body over 1 MiB with 413 even without a content-length', async () => {
    const big = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(`{"name":"${'x'.repeat(1024 * 1024)}"}`))
        c.close()
      },
    })
    const res = await call('/t/items', {
      method: 'POST',
      body: big,
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit)
    expect(res.status).toBe(413)
  })

  it('answers an unexpected error with an opaque 500 and hands the error to onError', async () => {
    errors.length = 0
    const res = await call('/t/broken')
    expect(res.status).toBe(500)
    const body = await res.text()
    expect(JSON.parse(body)).toMatchObject({ error: 'internal_error', status: 500 })
    expect(body).not.toContain('connection refused')
    expect(errors.map((e) => (e as Error).message)).toEqual(['connection refused (db)'])
    // Client errors are answers, not failures: nothing is reported for them.
    await call('/t/items/abc')
    await call('/t/nowhere')
    expect(errors).toHaveLength(1)
  })

  it('documents every route in OpenAPI 3.1 from the same schemas', () => {
    const doc = openApiDocument(api)
    expect(doc.openapi).toBe('3.1.0')
    const get = doc.paths['/t/items/{id}']?.get as { parameters: { name: string; in: string }[] }
    expect(get.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(['path:id', 'query:q'])
    expect(doc.paths['/t/items']?.post).toHaveProperty('requestBody')
  })

  it('answers a matching If-None-Match with 304 from the cache key alone, without running the route', async () => {
    runs = 0
    const first = await call('/t/tagged/a')
    const tag = first.headers.get('etag')!
    expect(tag).toMatch(/^"[0-9a-f]{32}"$/)
    expect(first.headers.get('cache-control')).toBe('no-cache')
    expect(first.headers.get('vary')).toBeNull()
    expect(runs).toBe(1)
    const again = await call('/t/tagged/a', { headers: { 'if-none-match': tag } })
    expect(again.status).toBe(304)
    expect(again.headers.get('etag')).toBe(tag)
    expect(runs).toBe(1)
    // Another input, or a new revision, is another tag and runs the route.
    expect((await call('/t/tagged/b', { headers: { 'if-none-match': tag } })).status).toBe(200)
    revision++
    const changed = await call('/t/tagged/a', { headers: { 'if-none-match': tag } })
    expect(changed.status).toBe(200)
    expect(changed.headers.get('etag')).not.toBe(tag)
    expect(runs).toBe(3)
    // Errors carry no tag.
    const gone = await call('/t/tagged/gone')
    expect(gone.status).toBe(404)
    expect(gone.headers.get('etag')).toBeNull()
  })

  it('opens one reader per request that reads, and none for a route that does not', async () => {
    readersOpened = 0
    const answer = await call('/t/tagged/x')
    // The tag and the body come from the one reader's revision.
    expect(await answer.json()).toEqual({ id: 'x', revision: String(revision) })
    expect(readersOpened).toBe(1)
    await call('/t/tagged/x', { headers: { 'if-none-match': answer.headers.get('etag')! } })
    expect(readersOpened).toBe(2)
    await call('/t/items/7')
    expect(readersOpened).toBe(2)
  })

  it('matches If-None-Match weakly, in lists and with *, and nothing else', () => {
    const tag = '"abc"'
    for (const header of ['"abc"', 'W/"abc"', '"x", "abc"', '"x",W/"abc" ', '*', ' * ']) {
      expect(ifNoneMatchHits(header, tag), header).toBe(true)
    }
    for (const header of [null, '', '"ab"', 'abc', '"abcd"', 'W/"ab"', '"x"', '**', '"abc']) {
      expect(ifNoneMatchHits(header, tag), String(header)).toBe(false)
    }
    expect(ifNoneMatchHits('"abc"', 'W/"abc"')).toBe(true)
  })
})
