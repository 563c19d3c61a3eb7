import { describe, expect, it } from 'vitest'
import { asnPathSchema, calendarDateSchema, multiTrendBody, trendQuery } from './request-schemas.js'

// The rule itself is @kcore/store's isCalendarDate (tested there); this checks the schema uses it.
describe('calendarDateSchema', () => {
  it.each(['2024-02-29', '2000-02-29', '1998-01-01', '0099-12-31', '0001-01-01', '9999-12-31'])(
    'accepts %s',
    (d) => {
      expect(calendarDateSchema.safeParse(d).success).toBe(true)
    },
  )
  it.each([
    '2023-02-29',
    '1900-02-29',
    '2023-02-30',
    '2023-04-31',
    '2023-00-10',
    '2023-1-01',
    '20230101',
    '2023-01-01T00:00:00Z',
    '0000-01-01',
    '0000-02-29',
    '10000-01-01',
    '+275760-09-13',
  ])('refuses %s', (d) => {
    expect(calendarDateSchema.safeParse(d).success).toBe(false)
  })
})

describe('asnPathSchema', () => {
  it('reads decimal digits up to 4294967295', () => {
    expect(asnPathSchema.parse('0')).toBe(0)
    expect(asnPathSchema.parse('007')).toBe(7)
    expect(asnPathSchema.parse('4294967295')).toBe(4_294_967_295)
    for (const bad of ['4294967296', '1e3', '12.5', '-1', '', ' 1', 'AS701', '0x1f'])
      expect(asnPathSchema.safeParse(bad).success).toBe(false)
  })
})

describe('trend inputs', () => {
  it('defaults the IP version and checks the date order only when both are given', () => {
    expect(trendQuery.parse({})).toEqual({ ip_version: 'ipv4' })
    expect(trendQuery.safeParse({ start_date: '2020-01-01', end_date: '2019-01-01' }).success).toBe(
      false,
    )
    expect(trendQuery.safeParse({ start_date: '2020-01-01', end_date: '2020-01-01' }).success).toBe(
      true,
    )
  })

  it('removes duplicate ASNs keeping first order, then caps at 100', () => {
    expect(multiTrendBody.parse({ asns: [3, 1, 3, 2, 1] }).asns).toEqual([3, 1, 2])
    const many = Array.from({ length: 101 }, (_, i) => i)
    expect(multiTrendBody.safeParse({ asns: many }).success).toBe(false)
    expect(multiTrendBody.safeParse({ asns: [...many.slice(0, 100), 0, 1] }).success).toBe(true)
  })
})
