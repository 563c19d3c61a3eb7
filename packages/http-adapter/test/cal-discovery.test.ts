import type { CalStore } from '@cal/store'
import { describe, expect, it } from 'vitest'
import { createCalApi } from '../src/cal/index.js'
import { mountApi } from '../src/mount-api.js'

// Discovery reads only the route table: no database needed.
const api = createCalApi({ store: {} as CalStore, tokens: [] })
const fetch = mountApi(api)
const get = async (path: string) => {
  const res = await fetch(new Request(`https://cal.test${path}`), 'https://cal.test')
  return { status: res.status, body: await res.json() }
}

describe('calendar discovery', () => {
  it('lists every route of the table with its methods, as a WordPress namespace index', async () => {
    const { status, body } = await get('/cal/events/v1')
    expect(status).toBe(200)
    expect(body.namespace).toBe('cal/events/v1')
    const expected = new Map<string, Set<string>>()
    for (const r of api.routes) {
      const key = `/cal/events/v1${r.path === '/' ? '' : r.path}`
        .replace(':id', '(?P<id>\\d+)')
        .replace(':slug', '(?P<slug>[^/]+)')
      expected.set(key, (expected.get(key) ?? new Set()).add(r.method))
    }
    expect(Object.keys(body.routes).sort()).toEqual([...expected.keys()].sort())
    for (const [key, methods] of expected) {
      expect(new Set(body.routes[key].methods), key).toEqual(methods)
      const covered = body.routes[key].endpoints.flatMap((e: { methods: string[] }) => e.methods)
      expect(new Set(covered), key).toEqual(methods)
    }
    for (const plural of ['events', 'venues', 'organizers', 'categories', 'tags']) {
      expect(body.routes[`/cal/events/v1/${plural}`]._links.self[0].href).toBe(
        `https://cal.test/cal/events/v1/${plural}`,
      )
      expect(body.routes[`/cal/events/v1/${plural}/(?P<id>\\d+)`].methods.sort()).toEqual([
        'DELETE',
        'GET',
        'PATCH',
        'POST',
        'PUT',
      ])
      expect(body.routes[`/cal/events/v1/${plural}/by-slug/(?P<slug>[^/]+)`]).toBeDefined()
    }
  })

  it('describes arguments from the validating schemas', async () => {
    const { body } = await get('/cal/events/v1/')
    const events = body.routes['/cal/events/v1/events']
    const list = events.endpoints.find((e: { methods: string[] }) => e.methods.includes('GET'))
    for (const arg of [
      'page',
      'per_page',
      'start_date',
      'end_date',
      'search',
      'categories',
      'tags',
      'venue',
      'organizer',
      'featured',
      'ticketed',
      'include',
      'post_parent',
      'geoloc',
      'geoloc_lat',
      'geoloc_lng',
      'geoloc_radius',
      'hide_from_listings',
      'status',
      'strict_dates',
      'starts_before',
      'starts_after',
      'ends_before',
      'ends_after',
      'modified_after',
      'modified_before',
      'format',
    ]) {
      expect(list.args[arg], arg).toMatchObject({ required: false })
    }
    const create = events.endpoints.find((e: { methods: string[] }) => e.methods.includes('POST'))
    expect(create.args.title.required).toBe(true)
    expect(create.args.start_date.required).toBe(true)
    expect(create.args.description.required).toBe(false)
    const one = body.routes['/cal/events/v1/events/(?P<id>\\d+)']
    const update = one.endpoints.find((e: { methods: string[] }) => e.methods.includes('PATCH'))
    expect(update.methods.sort()).toEqual(['PATCH', 'POST', 'PUT'])
    expect(update.args.id.required).toBe(true)
    expect(update.args.title.required).toBe(false)
    const terms = body.routes['/cal/events/v1/categories'].endpoints[0]
    expect(terms.args.orderby.enum).toEqual(['id', 'name', 'slug', 'count', 'include'])
  })

  it('answers 404 for another namespace and 400 for a bad context', async () => {
    const other = await get('/cal/events/v1?namespace=wp/v2')
    expect(other.status).toBe(404)
    expect(other.body.code).toBe('rest_invalid_namespace')
    expect((await get('/cal/events/v1?namespace=cal/events/v1&context=help')).status).toBe(200)
    expect((await get('/cal/events/v1?context=nonsense')).status).toBe(400)
  })

  it('serves an OpenAPI 3.1 document of every route', async () => {
    const { status, body } = await get('/cal/events/v1/doc')
    expect(status).toBe(200)
    expect(body.openapi).toBe('3.1.0')
    for (const r of api.routes) {
      const path = `/cal/events/v1${r.path}`.replace(/:(\w+)/g, '{$1}')
      expect(body.paths[path]?.[r.method.toLowerCase()], `${r.method} ${path}`).toBeDefined()
    }
    const list = body.paths['/cal/events/v1/events'].get
    expect(list.parameters.map((p: { name: string }) => p.name)).toContain('geoloc_radius')
    const names = list.parameters.map((p: { name: string }) => p.name)
    for (const name of ['modified_after', 'modified_before', 'format'])
      expect(names).toContain(name)
    expect(Object.keys(list.responses['200'].content)).toEqual([
      'application/json',
      'text/calendar',
    ])
    for (const other of ['venues', 'organizers']) {
      const params = body.paths[`/cal/events/v1/${other}`].get.parameters
      expect(params.map((p: { name: string }) => p.name)).toContain('modified_after')
    }
    expect(body.paths['/cal/events/v1/events'].post.requestBody).toBeDefined()
  })
})
