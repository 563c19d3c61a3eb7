import { testDatabases } from '@kcore/db/testing'
import { ingestFile } from '@kcore/store'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Handler } from '../src/index.js'
import { caidaFile, caller, kcoreHandler, openStore, type TestStore } from './kcore-helpers.js'

// Issue 10, defect 3: dates the edge accepted and the store refused (500), and defaults that
// inverted the range. Two snapshots: 1998-01-01 and 1999-02-01.
describe.each(testDatabases())('k-core trend dates on $name', ({ open }) => {
  let store: TestStore
  let handler: Handler
  let call: ReturnType<typeof caller>

  beforeAll(async () => {
    store = await openStore(open)
    await ingestFile(store, caidaFile('19980101'), { date: '1998-01-01' })
    await ingestFile(store, caidaFile('19990201'), { date: '1999-02-01' })
    handler = kcoreHandler(store)
    call = caller(handler)
  })
  afterAll(async () => {
    await handler?.close()
    await store?.database.close()
  })

  const points = (body: { trend_data: { date: string }[] }) => body.trend_data.map((p) => p.date)

  it.each([
    ['start_date=0001-01-01', { start: '0001-01-01', end: '1999-02-01' }],
    ['start_date=0099-12-31', { start: '0099-12-31', end: '1999-02-01' }],
    ['start_date=0050-01-01&end_date=1998-06-01', { start: '0050-01-01', end: '1998-06-01' }],
  ])('reads years below 100 as themselves (GET ?%s)', async (query, range) => {
    const res = await call(`/api/trends/701?${query}`)
    expect(res.status).toBe(200)
    expect(res.body.date_range).toEqual(range)
  })

  it('reads an end_date below year 100 as itself (nothing stored that early)', async () => {
    for (const end of ['0001-01-01', '0099-12-31']) {
      const res = await call(`/api/trends/701?end_date=${end}`)
      expect(res.status).toBe(200)
      // 0099 read as 1999 would take in both snapshots.
      expect(points(res.body)).toEqual([])
      expect(res.body.date_range).toEqual({ start: end, end })
    }
  })

  it('reads years below 100 as themselves in a POST body', async () => {
    const res = await call('/api/trends', {
      method: 'POST',
      json: { asns: [701], start_date: '0001-01-01', end_date: '0099-12-31' },
    })
    expect(res.status).toBe(200)
    expect(res.body.date_range).toEqual({ start: '0001-01-01', end: '0099-12-31' })
    expect(res.body.trend_data['701']).toEqual([])
  })

  it.each(['0000-01-01', '10000-01-01', '+275760-09-13', '0001-02-29', '1900-02-29'])(
    'refuses %s with 400 invalid_date',
    async (date) => {
      const res = await call(`/api/trends/701?start_date=${encodeURIComponent(date)}`)
      expect(res.status).toBe(400)
      expect(res.body.error).toBe('invalid_date')
    },
  )

  it('never inverts the range with a defaulted end before the given start', async () => {
    const res = await call('/api/trends/701?start_date=2024-02-29')
    expect(res.status).toBe(200)
    expect(res.body.date_range).toEqual({ start: '2024-02-29', end: '2024-02-29' })
    expect(points(res.body)).toEqual([])
  })

  it('never inverts the range with a defaulted start after the given end', async () => {
    const res = await call('/api/trends', {
      method: 'POST',
      json: { asns: [701], end_date: '1997-12-31' },
    })
    expect(res.status).toBe(200)
    expect(res.body.date_range).toEqual({ start: '1997-12-31', end: '1997-12-31' })
  })

  it('keeps a one-day range that falls on a snapshot', async () => {
    const res = await call('/api/trends/701?start_date=1999-02-01')
    expect(res.body.date_range).toEqual({ start: '1999-02-01', end: '1999-02-01' })
    expect(points(res.body)).toEqual(['1999-02-01'])
  })
})
