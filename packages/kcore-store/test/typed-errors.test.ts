import { openDatabase } from '@kcore/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createKcoreStore,
  InvalidQueryError,
  type KcoreStore,
  KcoreStoreError,
} from '../src/index.js'

// Malformed arguments at the store's entry points are the store's own typed error (code
// 'invalid_query', field named), so callers handle them with the rest of KcoreStoreError.
describe('store entry points reject malformed arguments with InvalidQueryError', () => {
  let store: KcoreStore
  let close: () => Promise<void>
  beforeAll(async () => {
    const database = await openDatabase({})
    close = () => database.close()
    store = createKcoreStore(database)
    await store.migrate()
  })
  afterAll(async () => {
    await close()
  })

  it.each([
    ['an IP version', () => store.trends('ipv5' as 'ipv4', [1]), 'ipVersion'],
    ['an ASN', () => store.trends('ipv4', [-1]), 'asns'],
    ['an ASN past 2^32', () => store.asnOverview(2 ** 32), 'asns'],
    ['a known-ASN query', () => store.knownAsns('ipv4', [Number.NaN]), 'asns'],
    ['a range date', () => store.trends('ipv4', [1], { start: '2024-02-30' }), 'start date'],
    [
      'a reversed range',
      () => store.trends('ipv4', [1], { start: '2024-02-01', end: '2024-01-01' }),
      'start date',
    ],
    ['a snapshot date', () => store.snapshot('ipv4', '2024-02-30'), 'snapshot date'],
  ])('%s', async (_what, call, field) => {
    const error = await Promise.resolve()
      .then(call)
      .then(
        () => undefined,
        (e: unknown) => e,
      )
    expect(error).toBeInstanceOf(InvalidQueryError)
    expect(error).toBeInstanceOf(KcoreStoreError)
    expect(error).toMatchObject({ code: 'invalid_query', field })
  })
})
