import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CalHarness, openCal, TOKEN } from './cal-harness.js'

describe.each(testDatabases())('calendar API authentication on $name', ({ open }) => {
  let t: CalHarness
  const writes: { method: string; path: string; body?: unknown }[] = []

  beforeAll(async () => {
    t = await openCal(open)
    const event = (
      await t.create('/events', {
        title: 'Auth',
        start_date: '2026-03-05 10:00',
        end_date: '2026-03-05 11:00',
      })
    ).body
    const venue = (await t.create('/venues', { venue: 'Auth Hall' })).body
    const organizer = (await t.create('/organizers', { organizer: 'Auth Org' })).body
    const category = (await t.create('/categories', { name: 'Auth Cat' })).body
    const tag = (await t.create('/tags', { name: 'Auth Tag' })).body
    const valid: Record<string, unknown> = {
      events: { title: 'X', start_date: '2026-03-05 10:00', end_date: '2026-03-05 11:00' },
      venues: { venue: 'X' },
      organizers: { organizer: 'X' },
      categories: { name: 'X' },
      tags: { name: 'X' },
    }
    for (const [plural, record] of [
      ['events', event],
      ['venues', venue],
      ['organizers', organizer],
      ['categories', category],
      ['tags', tag],
    ] as const) {
      writes.push({ method: 'POST', path: `/${plural}`, body: valid[plural] })
      for (const instance of [`/${plural}/${record.id}`, `/${plural}/by-slug/${record.slug}`]) {
        for (const method of ['POST', 'PUT', 'PATCH'])
          writes.push({ method, path: instance, body: {} })
        writes.push({ method: 'DELETE', path: instance })
      }
    }
  })
  afterAll(() => t?.close())

  it('refuses every write without a token, with a wrong one and with an empty one', async () => {
    expect(writes).toHaveLength(5 * 9)
    for (const w of writes) {
      const label = `${w.method} ${w.path}`
      const none = await t.call(w.method, w.path, { body: w.body })
      expect(none.status, label).toBe(401)
      expect(none.body, label).toMatchObject({ code: 'rest_not_logged_in', data: { status: 401 } })
      const wrong = await t.call(w.method, w.path, { body: w.body, token: `Bearer ${TOKEN}x` })
      expect(wrong.status, label).toBe(401)
      expect(wrong.body.code, label).toBe('rest_invalid_token')
      const empty = await t.call(w.method, w.path, { body: w.body, token: 'Bearer ' })
      expect(empty.status, label).toBe(401)
    }
    // Nothing changed.
    expect((await t.get('/events')).body.total).toBe(1)
    expect((await t.get('/venues')).body.total).toBe(1)
  })

  it('validates before authenticating (the original checks auth first)', async () => {
    const res = await t.call('POST', '/events', { body: { title: 'No dates' } })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('rest_invalid_param')
  })

  it('never echoes the token', async () => {
    const res = await t.call('POST', '/venues', {
      body: { venue: 'X' },
      token: 'Bearer guessed-secret',
    })
    expect(JSON.stringify(res.body)).not.toContain('guessed-secret')
  })

  it('refuses writes when no token is configured', async () => {
    const { createHandler } = await import('../src/index.js')
    const closed = createHandler({ cal: { store: t.store, tokens: [] } })
    const res = await closed(
      new Request('http://cal.test/cal/events/v1/tags', {
        method: 'POST',
        headers: { authorization: 'Bearer ', 'content-type': 'application/json' },
        body: '{"name":"x"}',
      }),
    )
    expect(res.status).toBe(401)
  })
})
