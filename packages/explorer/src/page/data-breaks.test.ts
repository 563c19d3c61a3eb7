import { describe, expect, it } from 'vitest'
import { breaksOf, breaksShown, breakText } from './data-breaks.js'

const items = [
  { date: '2023-01-01', what: 'New inference', source: 'CAIDA', ip_version: 'ipv4' },
  { date: '2018-03-01', what: 'Method change', source: 'CAIDA' },
  { date: '2019-01-01', what: 'v6 change', source: 'CAIDA', ip_version: 'ipv6' },
]

describe('breaksOf', () => {
  it('reads breaks.items, oldest first', () => {
    expect(breaksOf({ ipv4: {}, breaks: { items } }).map((b) => b.date)).toEqual([
      '2018-03-01',
      '2019-01-01',
      '2023-01-01',
    ])
  })

  it('draws nothing from a summary without breaks or of another shape', () => {
    for (const summary of [
      {},
      null,
      'x',
      { breaks: null },
      { breaks: [] },
      { breaks: { items: 'no' } },
      { breaks: { items: [null, 1, { date: 'soon', what: 'x', source: 'y' }] } },
      { breaks: { items: [{ date: '2018-01-01', what: 1, source: 'y' }] } },
      { breaks: { items: [{ date: '2018-01-01', what: 'x', source: 'y', ip_version: 'ipv5' }] } },
    ])
      expect(breaksOf(summary)).toEqual([])
  })
})

describe('breaksShown', () => {
  const breaks = breaksOf({ breaks: { items } })
  const dates = ['2015-01-01', '2020-01-01', '2022-06-01']

  it('keeps the breaks of the versions drawn, inside the dates drawn', () => {
    expect(breaksShown(breaks, ['ipv4'], dates).map((b) => b.date)).toEqual(['2018-03-01'])
    expect(breaksShown(breaks, ['ipv6'], dates).map((b) => b.date)).toEqual([
      '2018-03-01',
      '2019-01-01',
    ])
    expect(breaksShown(breaks, ['ipv4', 'ipv6'], [...dates, '2024-01-01'])).toHaveLength(3)
    expect(breaksShown(breaks, ['ipv4'], [])).toEqual([])
  })

  it('says when, which version, what and who says so', () => {
    expect(breakText(breaks[2] as (typeof breaks)[number])).toBe(
      '2023-01-01 (IPv4): New inference — CAIDA',
    )
    expect(breakText(breaks[0] as (typeof breaks)[number])).toBe(
      '2018-03-01: Method change — CAIDA',
    )
  })
})
