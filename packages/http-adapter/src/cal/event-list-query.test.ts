import type { CalStore } from '@cal/store'
import { describe, expect, it } from 'vitest'
import type { CalContext } from './cal-context.js'
import { eventListQuery, toEventFilter } from './event-list-query.js'

const contextAt = (iso: string): CalContext => ({
  store: {} as CalStore,
  auth: { identify: () => ({ authenticated: false }) } as unknown as CalContext['auth'],
  timezone: 'UTC',
  now: () => new Date(iso),
  memo: { get: (_revision, _key, compute) => compute() },
})

describe('toEventFilter', () => {
  it('defaults the window to today 00:00:00 … now + 24 months, to the whole second', () => {
    const query = eventListQuery.parse({})
    const filter = toEventFilter(query, contextAt('2026-11-23T13:05:07.250Z'))
    expect(filter.window?.start?.toISOString()).toBe('2026-11-23T00:00:00.000Z')
    expect(filter.window?.end?.toISOString()).toBe('2028-11-23T13:05:07.000Z')
    // The same filter all through one second: one list cache key.
    const later = toEventFilter(query, contextAt('2026-11-23T13:05:07.999Z'))
    expect(JSON.stringify(later)).toBe(JSON.stringify(filter))
  })
})
