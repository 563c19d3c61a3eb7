import { testDatabases } from '@kcore/db/testing'
import { DATA_BREAKS, DATA_BREAKS_VERSION, ingestFile, isCalendarDate } from '@kcore/store'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Handler } from '../src/index.js'
import {
  caidaFile,
  caller,
  clearStore,
  kcoreHandler,
  openStore,
  type TestStore,
} from './kcore-helpers.js'

// `/api/summary` carries the versioned table of known CAIDA data breaks beside (never instead
// of) the per-version figures, with or without data.
describe.each(testDatabases())('data breaks in the summary on $name', ({ open }) => {
  let store: TestStore
  let handler: Handler
  let call: ReturnType<typeof caller>

  beforeAll(async () => {
    store = await openStore(open)
    await ingestFile(store, caidaFile('19980101'), { date: '1998-01-01' })
    handler = kcoreHandler(store)
    call = caller(handler)
  })
  afterAll(async () => {
    await handler?.close()
    await store?.database.close()
  })

  it('answers the table, versioned, oldest first, each item dated and sourced', async () => {
    const res = await call('/api/summary')
    expect(res.status).toBe(200)
    expect(res.body.ipv4).toMatchObject({
      snapshot_count: 1,
      date_range: ['1998-01-01', '1998-01-01'],
    })
    expect(res.body.breaks).toEqual({ version: DATA_BREAKS_VERSION, items: DATA_BREAKS })
    const items = res.body.breaks.items as {
      date: string
      what: string
      source: string
      ip_version?: string
    }[]
    expect(items.length).toBeGreaterThan(0)
    expect(items.map((b) => b.date)).toEqual(items.map((b) => b.date).sort())
    for (const b of items) {
      expect(isCalendarDate(b.date), b.date).toBe(true)
      expect(b.what.length).toBeGreaterThan(10)
      expect(b.source).toMatch(/caida\.org|SOURCES\.md/)
      expect([undefined, 'ipv4', 'ipv6']).toContain(b.ip_version)
    }
    // The two jumps the real-history chart shows (the 2019 and 2023 files) are in it.
    expect(items.map((b) => b.date)).toEqual(expect.arrayContaining(['2019-01-01', '2023-01-01']))
  })

  it('answers it on an empty store too, and documents it in OpenAPI', async () => {
    const doc = (await call('/api/openapi.json')).body
    const schema = JSON.stringify(doc.paths['/api/summary'].get.responses['200'])
    expect(schema).toContain('breaks')
    await clearStore(store)
    const empty = await call('/api/summary')
    expect(empty.status).toBe(200)
    expect(empty.body).toEqual({ breaks: { version: DATA_BREAKS_VERSION, items: DATA_BREAKS } })
  })
})
