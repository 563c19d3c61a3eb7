import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WPAPI from 'wpapi'
import { type CalHarness, openCal } from './cal-harness.js'

const EVENTS = 120

/** The events route as wpapi registers a custom namespace (the factory runs bound to the client). */
const eventsRoute = (wp: WPAPI) => {
  const factory = wp.registerRoute('cal/events/v1', '/events')
  return () => factory.call(wp)
}

describe.each(testDatabases())(
  'a generic WordPress client pages the calendar on $name',
  ({ open }) => {
    let t: CalHarness
    let server: ReturnType<typeof serve>
    let endpoint: string
    const created: number[] = []

    // Links come from the public URL (never the Host header): the server's own origin here, so
    // wpapi follows them back to it. Known once it listens.
    let origin = 'http://127.0.0.1'

    beforeAll(async () => {
      t = await openCal(open, { publicUrl: () => origin })
      for (let i = 0; i < EVENTS; i++) {
        const day = String(1 + (i % 28)).padStart(2, '0')
        const event = await t.store.events.create({
          title: `Event ${i}`,
          // Same start for groups of events: paging must still be stable (start, then id).
          start: new Date(`2026-04-${day}T10:00:00Z`),
          end: new Date(`2026-04-${day}T12:00:00Z`),
          timezone: 'UTC',
        })
        created.push(event.id)
      }
      await new Promise<void>((resolve) => {
        server = serve(
          { fetch: t.handler, port: 0, hostname: '127.0.0.1' },
          (info: AddressInfo) => {
            origin = `http://127.0.0.1:${info.port}`
            endpoint = `${origin}/`
            resolve()
          },
        )
      })
    })

    afterAll(async () => {
      await new Promise((resolve) => server?.close(resolve))
      await t?.close()
    })

    it('wpapi follows its own _paging (X-WP-* and Link) through all 120 events once', async () => {
      const wp = new WPAPI({ endpoint })
      const events = eventsRoute(wp)
      const seen: number[] = []
      let request: ReturnType<typeof events> | undefined = events().perPage(25)
      let pages = 0
      let last: Awaited<ReturnType<ReturnType<typeof events>['get']>> | undefined
      while (request) {
        last = await request.get()
        pages++
        seen.push(...(last.events as { id: number }[]).map((e) => e.id))
        expect(last._paging?.total).toBe(EVENTS)
        expect(last._paging?.totalPages).toBe(5)
        if (pages > 1) expect(last._paging?.prev).toBeDefined()
        request = last._paging?.next
      }
      expect(pages).toBe(5)
      expect(seen).toHaveLength(EVENTS)
      expect(new Set(seen)).toEqual(new Set(created))
      // The last page has only a way back.
      expect(last?._paging?.next).toBeUndefined()
    })

    it('filters survive in the links wpapi follows (PHP-style keys included)', async () => {
      const wp = new WPAPI({ endpoint })
      const events = eventsRoute(wp)
      const some = created.filter((_, i) => i % 3 === 0)
      let request: ReturnType<typeof events> | undefined = events()
        .perPage(7)
        .param('include', some.map(String))
      const seen: number[] = []
      while (request) {
        const body = await request.get()
        seen.push(...(body.events as { id: number }[]).map((e) => e.id))
        request = body._paging?.next
      }
      expect(seen.sort((a, b) => a - b)).toEqual([...some].sort((a, b) => a - b))
    })

    it('sends the WordPress, TEC and calendar totals and RFC 8288 links on every list', async () => {
      const res = await t.handler(
        new Request('http://cal.test/cal/events/v1/events?per_page=50&page=2'),
      )
      expect(res.headers.get('X-WP-Total')).toBe('120')
      expect(res.headers.get('X-WP-TotalPages')).toBe('3')
      expect(res.headers.get('X-TEC-Total')).toBe('120')
      expect(res.headers.get('X-CAL-TotalPages')).toBe('3')
      expect(res.headers.get('Link')).toBe(
        `<${origin}/cal/events/v1/events?per_page=50>; rel="prev", <${origin}/cal/events/v1/events?per_page=50&page=3>; rel="next"`,
      )
      for (const list of ['venues', 'organizers', 'categories', 'tags']) {
        const r = await t.handler(new Request(`http://cal.test/cal/events/v1/${list}`))
        expect(r.headers.get('X-WP-Total'), list).toBe('0')
        expect(r.headers.get('X-WP-TotalPages'), list).toBe('0')
        expect(r.headers.has('Link'), list).toBe(false)
      }
    })

    // Last: it adds a series to the calendar the tests above count.
    it('pages the occurrences of a series like events, each once (a v1 client)', async () => {
      const series = await t.store.events.create({
        title: 'Weekly',
        // Starts at the same instants as some single events: ties still page stably.
        start: new Date('2026-04-01T10:00:00Z'),
        end: new Date('2026-04-01T11:00:00Z'),
        timezone: 'UTC',
        recurrence: { rules: ['FREQ=WEEKLY;COUNT=10'] },
      })
      const wp = new WPAPI({ endpoint })
      const events = eventsRoute(wp)
      const seen: { id: number; start: string }[] = []
      let request: ReturnType<typeof events> | undefined = events().perPage(9)
      while (request) {
        const body = await request.get()
        expect(body._paging?.total).toBe(EVENTS + 10)
        seen.push(
          ...(body.events as { id: number; utc_start_date: string }[]).map((e) => ({
            id: e.id,
            start: e.utc_start_date,
          })),
        )
        request = body._paging?.next
      }
      expect(seen).toHaveLength(EVENTS + 10)
      expect(new Set(seen.map((e) => e.id)).size).toBe(EVENTS + 10)
      expect(seen.map((e) => e.start)).toEqual(seen.map((e) => e.start).sort())
      expect(seen.filter((e) => e.id === series.id)).toHaveLength(1)
    })
  },
)
