import { type CalReader, type CalStore, createCalStore } from '@cal/store'
import { migrateCal } from '@cal/store/testing'
import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHandler, type Handler } from '../src/index.js'
import { BASE, NOW, TOKEN } from './cal-harness.js'

// The calendar API keeps its rendered list pages itself, by the reader's data revision: it
// never asks the store's reader to memoize (a reader without `memo` serves every list), a
// repeated list at one revision is not read again, and a write (a new revision) is.

/** The store, its readers without `memo`, counting the list reads they make. */
function withoutStoreMemo(store: CalStore) {
  const reads = { count: 0 }
  const wrapped: CalStore = new Proxy(store, {
    get(target, prop) {
      if (prop !== 'reader') return Reflect.get(target, prop)
      return async () => {
        const reader = await target.reader()
        const events: CalReader['events'] = {
          list: (filter) => reader.events.list(filter),
          listWith: (filter, read) => {
            reads.count++
            return reader.events.listWith(filter, read)
          },
        }
        return new Proxy(reader, {
          get(r, p) {
            if (p === 'memo') return undefined
            if (p === 'events') return events
            const value = Reflect.get(r, p)
            return typeof value === 'function' ? value.bind(r) : value
          },
        })
      }
    },
  })
  return { wrapped, reads }
}

describe.each(testDatabases())('the events list memo on $name', ({ open }) => {
  let handler: Handler
  let close: () => Promise<void>
  let reads: { count: number }

  beforeAll(async () => {
    const database = await open(migrateCal)
    const store = createCalStore(database)
    await store.migrate()
    const seam = withoutStoreMemo(store)
    reads = seam.reads
    handler = createHandler({ cal: { store: seam.wrapped, tokens: [TOKEN], now: () => NOW } })
    close = async () => {
      await handler.close()
      await database.close()
    }
  })
  afterAll(() => close?.())

  const list = async () => {
    const res = await handler(new Request(`${BASE}/events?per_page=5`))
    expect(res.status).toBe(200)
    return res.text()
  }
  const create = async (title: string) => {
    const res = await handler(
      new Request(`${BASE}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          title,
          start_date: '2026-03-02 10:00:00',
          end_date: '2026-03-02 11:00:00',
        }),
      }),
    )
    expect(res.status).toBe(201)
  }

  it('answers a repeated list from its own memo and reads again after a write', async () => {
    await create('First')
    const before = reads.count
    const first = await list()
    expect(reads.count).toBe(before + 1)
    expect(await list()).toBe(first)
    expect(reads.count).toBe(before + 1)
    await create('Second')
    const second = await list()
    expect(reads.count).toBe(before + 2)
    expect(second).not.toBe(first)
    expect(JSON.parse(second).events.map((e: { title: string }) => e.title)).toEqual([
      'First',
      'Second',
    ])
  })
})
