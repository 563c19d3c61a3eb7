import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CalHarness, openCal } from './cal-harness.js'

// Issue 26 item 5: category trees have no depth limit; the ancestor walk is bounded by the
// data (and ends on a cycle), so creating under or moving below a deep chain is judged by
// the tree alone, and only a real cycle is refused.
const DEPTH = 250

describe.each(testDatabases())('deep category trees on $name', ({ open }) => {
  let t: CalHarness
  const chain: number[] = []

  beforeAll(async () => {
    t = await openCal(open)
    let parent = 0
    for (let i = 0; i < DEPTH; i++) {
      parent = (await t.create('/categories', { name: `level ${i}`, parent })).body.id
      chain.push(parent)
    }
  }, 120_000)
  afterAll(() => t?.close())

  it('creates a child under the deepest category', async () => {
    const leaf = await t.create('/categories', { name: 'leaf', parent: chain.at(-1) })
    expect(leaf.body.parent).toBe(chain.at(-1))
  })

  it('re-parents a new root below the deepest category, and a chain under its own leaf is a cycle', async () => {
    const root = (await t.create('/categories', { name: 'wanderer' })).body.id
    const moved = await t.call('POST', `/categories/${root}`, {
      body: { parent: chain.at(-1) },
      token: true,
    })
    expect(moved.status).toBe(200)
    expect(moved.body.parent).toBe(chain.at(-1))
    const cycle = await t.call('POST', `/categories/${chain[0]}`, {
      body: { parent: root },
      token: true,
    })
    expect(cycle.status).toBe(400)
    expect(cycle.body.data.params.parent).toMatch(/own ancestor/)
  })

  it('lists events of the root category filed under the deepest one', async () => {
    const event = await t.create('/events', {
      title: 'Deep',
      start_date: '2026-03-05 10:00:00',
      end_date: '2026-03-05 11:00:00',
      categories: [chain.at(-1)],
    })
    const listed = await t.get(`/events?categories=${chain[0]}`)
    expect(listed.status).toBe(200)
    expect(listed.body.events.map((e: { id: number }) => e.id)).toEqual([event.body.id])
  })
})
