import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CalHarness, openCal } from './cal-harness.js'

// A split (scope=following) that no series can express is a 400 naming `scope`, and the
// series stays as it was; one that can is made (the other rule's rest as rdates).

const WINDOW = 'start_date=2026-03-01&end_date=2026-06-30&per_page=50'

describe.each(testDatabases())(
  'scope=following that cannot split, over HTTP on $name',
  ({ open }) => {
    let t: CalHarness

    beforeAll(async () => {
      t = await openCal(open)
    })
    afterAll(() => t?.close())

    /** Mondays, plus every 10th day from the same start (both from Monday 2026-03-02 10:00). */
    const twoRules = (daily: string) => ({
      title: 'Two rules',
      start_date: '2026-03-02 10:00:00',
      end_date: '2026-03-02 11:00:00',
      timezone: 'Europe/Berlin',
      recurrence: { rules: ['FREQ=WEEKLY;BYDAY=MO', daily] },
    })
    const listed = async (id: number) =>
      (await t.get(`/events?${WINDOW}&post_parent=${id}`)).body.events as {
        id: number
        start_date: string
        title: string
      }[]

    it("refuses a cut on one rule's day when the other never ends, and writes nothing", async () => {
      const series = (await t.create('/events', twoRules('FREQ=DAILY;INTERVAL=10'))).body
      const before = await listed(series.id)
      // 2026-03-09 is a Monday: the daily rule (12th, 22nd, …) has no occurrence there.
      const cut = before.find((e) => e.start_date === '2026-03-09 10:00:00')
      const res = await t.call('PATCH', `/events/${cut?.id}?scope=following`, {
        body: { title: 'Later' },
        token: true,
      })
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({
        code: 'rest_invalid_param',
        data: { params: { scope: expect.any(String) } },
      })
      expect(await listed(series.id)).toEqual(before)
    })

    it('splits there when the other rule ends: its rest goes on as dates', async () => {
      const series = (await t.create('/events', twoRules('FREQ=DAILY;INTERVAL=10;COUNT=6'))).body
      const before = await listed(series.id)
      const at = before.findIndex((e) => e.start_date === '2026-03-09 10:00:00')
      const res = await t.call('PATCH', `/events/${before[at]?.id}?scope=following`, {
        body: { title: 'Later' },
        token: true,
      })
      expect(res.status).toBe(200)
      const kept = await listed(series.id)
      expect(kept.map((e) => e.id)).toEqual(before.slice(0, at).map((e) => e.id))
      const later = await listed(res.body.id)
      expect(later.map((e) => e.start_date)).toEqual(before.slice(at).map((e) => e.start_date))
      expect(new Set(later.map((e) => e.title))).toEqual(new Set(['Later']))
    })
  },
)
