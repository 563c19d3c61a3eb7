import type { Database } from '@kcore/db'
import { propertyRuns, testDatabases } from '@kcore/db/testing'
import { migrateWebhooks, webhookSubscriptions } from '@kcore/webhooks'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { calInvalidInput } from '../cal/invalid-input.js'
import { HttpError } from '../http-error.js'
import { kcoreInvalidInput } from '../kcore/invalid-input.js'
import { mountApi } from '../mount-api.js'
import type { Api } from '../route.js'
import { calWebhookErrors, kcoreWebhookErrors } from './webhook-http-errors.js'
import { webhookRoutes } from './webhook-routes.js'

const TOKEN = 'Bearer right'
const authorize = (request: Request) => {
  if (request.headers.get('authorization') !== TOKEN)
    throw new HttpError(401, 'unauthorized', 'token needed')
}

describe.each(testDatabases())('webhook routes on $name', ({ open }) => {
  let database: Database
  let cal: (path: string, init?: RequestInit) => Promise<Response>
  let kcore: (path: string, init?: RequestInit) => Promise<Response>
  const failures: unknown[] = []

  beforeAll(async () => {
    database = await open()
    await migrateWebhooks(database.db)
    const subscriptions = webhookSubscriptions(database, {
      events: { cal: ['event.created', 'event.deleted'], kcore: ['snapshot.added'] },
      maxPerApi: 3,
      // No lookup leaves the machine: one name resolves privately, every other publicly.
      lookup: async (host) => [{ address: host === 'private.test' ? '10.0.0.1' : '93.184.216.34' }],
    })
    const calApi: Api = {
      base: '/cal/events/v1',
      title: 'cal',
      version: '1',
      errorStyle: 'wordpress',
      invalidInput: calInvalidInput,
      routes: webhookRoutes({ api: 'cal', subscriptions, authorize, errors: calWebhookErrors }),
    }
    const kcoreApi: Api = {
      base: '/api',
      title: 'kcore',
      version: '1',
      errorStyle: 'plain',
      invalidInput: kcoreInvalidInput,
      routes: webhookRoutes({ api: 'kcore', subscriptions, authorize, errors: kcoreWebhookErrors }),
    }
    const caller =
      (api: Api) =>
      (path: string, init: RequestInit = {}) =>
        mountApi(api, (e) => failures.push(e))(
          new Request(`http://x${api.base}${path}`, {
            ...init,
            headers: { authorization: TOKEN, 'content-type': 'application/json', ...init.headers },
          }),
          'http://x',
        )
    cal = caller(calApi)
    kcore = caller(kcoreApi)
  })
  afterAll(() => database.close())

  const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) })

  it('subscribes, lists without secrets, logs deliveries, deletes', async () => {
    const created = await cal(
      '/webhooks',
      post({ url: 'https://93.184.216.34/h', events: ['event.created'] }),
    )
    expect(created.status).toBe(201)
    const sub = await created.json()
    expect(sub).toMatchObject({ url: 'https://93.184.216.34/h', events: ['event.created'] })
    expect(sub.secret).toMatch(/^whsec_/)
    const list = await cal('/webhooks')
    expect(await list.json()).toEqual([
      { id: sub.id, url: sub.url, events: sub.events, created_utc: sub.created_utc },
    ])
    // Each API sees only its own.
    expect(await (await kcore('/webhooks')).json()).toEqual([])
    expect((await kcore(`/webhooks/${sub.id}`, { method: 'DELETE' })).status).toBe(404)

    const deliveries = await cal(`/webhooks/${sub.id}/deliveries?limit=5`)
    expect(deliveries.status).toBe(200)
    expect(await deliveries.json()).toEqual([])

    expect((await cal(`/webhooks/${sub.id}`, { method: 'DELETE' })).status).toBe(204)
    const again = await cal(`/webhooks/${sub.id}`, { method: 'DELETE' })
    expect(again.status).toBe(404)
    expect(await again.json()).toMatchObject({ code: 'webhook-not-found' })
    const gone = await kcore(`/webhooks/${sub.id}/deliveries`)
    expect(await gone.json()).toMatchObject({ error: 'webhook_not_found', status: 404 })
  })

  it('answers 401 without the token, before reading the input', async () => {
    for (const [path, init] of [
      ['/webhooks', { method: 'POST', body: '{not json' }],
      ['/webhooks', {}],
      ['/webhooks/x', { method: 'DELETE' }],
      ['/webhooks/x/deliveries?limit=0', {}],
    ] as const) {
      const res = await cal(path, { ...init, headers: { authorization: 'Bearer wrong' } })
      expect(res.status, path).toBe(401)
    }
  })

  it('answers 400 naming the field, in each API’s own words', async () => {
    const cases: [unknown, string][] = [
      [{ url: 'ftp://93.184.216.34/', events: ['event.created'] }, 'url'],
      [{ url: 'http://127.0.0.1/', events: ['event.created'] }, 'url'],
      [{ url: 'http://[fd00::1]/', events: ['event.created'] }, 'url'],
      // IPv6 forms that carry a private IPv4 address, and IPv4 spelled otherwise.
      [{ url: 'http://[::127.0.0.1]/', events: ['event.created'] }, 'url'],
      [{ url: 'http://[::7f00:1]/', events: ['event.created'] }, 'url'],
      [{ url: 'http://[::10.0.0.1]/', events: ['event.created'] }, 'url'],
      [{ url: 'http://[::169.254.169.254]/', events: ['event.created'] }, 'url'],
      [{ url: 'http://[::ffff:127.0.0.1]/', events: ['event.created'] }, 'url'],
      [{ url: 'http://[64:ff9b::10.0.0.1]/', events: ['event.created'] }, 'url'],
      [{ url: 'http://[2002:a9fe:a9fe::1]/', events: ['event.created'] }, 'url'],
      [{ url: 'http://0x7f.1/', events: ['event.created'] }, 'url'],
      [{ url: 'http://0177.0.0.1/', events: ['event.created'] }, 'url'],
      [{ url: 'https://private.test/hook', events: ['event.created'] }, 'url'],
      [{ url: 'https://u:p@93.184.216.34/', events: ['event.created'] }, 'url'],
      [{ events: ['event.created'] }, 'url'],
      [{ url: 'https://93.184.216.34/', events: ['event.exploded'] }, 'events'],
      [{ url: 'https://93.184.216.34/', events: [] }, 'events'],
      [{ url: 'https://93.184.216.34/' }, 'events'],
    ]
    const stored = await (await cal('/webhooks')).json()
    for (const [body, field] of cases) {
      const res = await cal('/webhooks', post(body))
      expect(res.status, JSON.stringify(body)).toBe(400)
      const json = await res.json()
      expect(json.code).toBe('rest_invalid_param')
      expect(Object.keys(json.data.params), JSON.stringify(body)).toEqual([field])
    }
    expect(await (await cal('/webhooks')).json()).toEqual(stored)
    const k = await kcore(
      '/webhooks',
      post({ url: 'https://93.184.216.34/', events: ['event.created'] }),
    )
    expect(k.status).toBe(400)
    expect(await k.json()).toMatchObject({
      error: 'invalid_parameter',
      details: [{ path: 'events', message: expect.stringContaining('snapshot.added') }],
    })
    // PostgreSQL text cannot hold U+0000: an id with one is the API's 400, never a 500.
    for (const init of [{ method: 'DELETE' }, {}])
      expect((await kcore('/webhooks/a%00b', init)).status).toBe(init.method ? 400 : 405)
    expect((await cal('/webhooks/%00/deliveries')).status).toBe(400)
    const limit = await kcore('/webhooks/x/deliveries?limit=0')
    expect(limit.status).toBe(400)
    expect(await limit.json()).toMatchObject({ details: [{ path: 'limit' }] })
  })

  it('says so when the cap is reached', async () => {
    for (let i = 0; i < 3; i++)
      expect(
        (
          await kcore(
            '/webhooks',
            post({ url: `https://93.184.216.34/${i}`, events: ['snapshot.added'] }),
          )
        ).status,
      ).toBe(201)
    const res = await kcore(
      '/webhooks',
      post({ url: 'https://93.184.216.34/4', events: ['snapshot.added'] }),
    )
    expect(res.status).toBe(400)
    expect((await res.json()).message).toContain('3 webhook subscriptions')
  })

  it('never answers 500 to any body', async () => {
    const urls = fc.oneof(
      fc.webUrl(),
      fc.constantFrom(
        'http://10.0.0.1/',
        'http://[::1]/',
        'gopher://x',
        '',
        'https://',
        'http://0/',
      ),
      fc.string(),
    )
    const body = fc.oneof(
      fc.anything(),
      fc.record(
        {
          url: fc.oneof(urls, fc.anything()),
          events: fc.oneof(fc.array(fc.string()), fc.anything()),
        },
        { requiredKeys: [] },
      ),
    )
    await fc.assert(
      fc.asyncProperty(body, async (value) => {
        const res = await cal('/webhooks', post(value))
        expect([201, 400]).toContain(res.status)
        if (res.status === 201) {
          const { id } = await res.json()
          await cal(`/webhooks/${id}`, { method: 'DELETE' })
        }
      }),
      { numRuns: propertyRuns(200, 30) },
    )
    expect(failures).toEqual([])
  })
})
