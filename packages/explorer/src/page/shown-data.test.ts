import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { SnapshotRow, TrendPoint } from './api-types.js'
import {
  dateToSeconds,
  heldPoints,
  REFERENCE_LABEL,
  secondsToDate,
  shownData,
  shownVersions,
  toCsv,
} from './shown-data.js'

const snapshots: SnapshotRow[] = [
  { date: '1998-01-01', max_shell_index: 9, unique_asns: 3233 },
  { date: '2005-01-01', max_shell_index: 37, unique_asns: 18962 },
  { date: '2010-01-01', max_shell_index: 51, unique_asns: 33486 },
]
const point = (date: string, shell: number, max: number): TrendPoint => ({
  date,
  shell_index: shell,
  max_shell_index: max,
  normalized_shell_index: shell / max,
})

describe('shownData', () => {
  const trends = [
    { asn: '3356', points: [point('1998-01-01', 9, 9), point('2010-01-01', 51, 51)] },
    { asn: '15169', points: [point('2005-01-01', 3, 37)] },
  ]

  it('aligns every ASN on the snapshot dates, leaving gaps where it is absent', () => {
    const data = shownData({
      snapshots,
      range: { start: null, end: null },
      trends,
      normalized: false,
    })
    expect(data).toEqual({
      dates: ['1998-01-01', '2005-01-01', '2010-01-01'],
      series: [
        { label: 'AS3356', legend: 'AS3356', values: [9, null, 51], colour: 0 },
        { label: 'AS15169', legend: 'AS15169', values: [null, 3, null], colour: 1 },
        { label: REFERENCE_LABEL, legend: REFERENCE_LABEL, values: [9, 37, 51], reference: true },
      ],
    })
    expect(heldPoints(data)).toEqual({
      AS3356: [
        ['1998-01-01', 9],
        ['2010-01-01', 51],
      ],
      AS15169: [['2005-01-01', 3]],
      [REFERENCE_LABEL]: [
        ['1998-01-01', 9],
        ['2005-01-01', 37],
        ['2010-01-01', 51],
      ],
    })
    expect(toCsv(data)).toBe(
      'date,AS3356,AS15169,max shell index\n1998-01-01,9,,9\n2005-01-01,,3,37\n2010-01-01,51,,51\n',
    )
  })

  it('keeps only the range the API used, and the normalized values at full precision', () => {
    const data = shownData({
      snapshots,
      range: { start: '2005-01-01', end: '2010-01-01' },
      trends: [{ asn: '15169', points: [point('2005-01-01', 3, 37)] }],
      normalized: true,
    })
    expect(data.dates).toEqual(['2005-01-01', '2010-01-01'])
    expect(data.series[0]?.values).toEqual([3 / 37, null])
    expect(data.series[1]?.values).toEqual([1, 1])
    expect(toCsv(data).split('\n')[1]).toBe(`2005-01-01,${3 / 37},1`)
  })

  it('shows the reference line alone with no ASN, and nothing on an empty store', () => {
    const none = shownData({
      snapshots,
      range: { start: null, end: null },
      trends: [],
      normalized: false,
    })
    expect(none.series).toEqual([
      { label: REFERENCE_LABEL, legend: REFERENCE_LABEL, values: [9, 37, 51], reference: true },
    ])
    const empty = shownData({
      snapshots: [],
      range: { start: null, end: null },
      trends: [],
      normalized: false,
    })
    expect(empty).toEqual({
      dates: [],
      series: [{ label: REFERENCE_LABEL, legend: REFERENCE_LABEL, values: [], reference: true }],
    })
    expect(toCsv(empty)).toBe('date,max shell index\n')
  })

  it('holds every API point exactly once, whatever subset of snapshots each AS is in', () => {
    const rows = fc.uniqueArray(fc.integer({ min: 1, max: 3000 }), { minLength: 1, maxLength: 20 })
    fc.assert(
      fc.property(
        rows,
        fc.array(fc.array(fc.boolean(), { maxLength: 20 }), { maxLength: 10 }),
        (days, masks) => {
          const dates = days.map((d) => secondsToDate(d * 86400 * 30)).sort()
          const rowsOf = dates.map((date, i) => ({ date, max_shell_index: i + 1, unique_asns: 1 }))
          const trendsOf = masks.map((mask, a) => ({
            asn: String(a),
            points: rowsOf
              .filter((_, i) => mask[i])
              .map((r) => point(r.date, 1, r.max_shell_index)),
          }))
          const data = shownData({
            snapshots: rowsOf,
            range: { start: null, end: null },
            trends: trendsOf,
            normalized: false,
          })
          const held = heldPoints(data)
          for (const t of trendsOf) {
            expect(held[`AS${t.asn}`]).toEqual(t.points.map((p) => [p.date, p.shell_index]))
          }
        },
      ),
    )
  })
})

describe('shownData legends', () => {
  it('names each ASN in the legend but keys the CSV and hook by number', () => {
    const data = shownData({
      snapshots,
      range: { start: null, end: null },
      trends: [{ asn: '13335', points: [point('2010-01-01', 40, 51)] }],
      normalized: false,
      legend: (asn) => (asn === '13335' ? 'AS13335 Cloudflare, Inc.' : `AS${asn}`),
    })
    expect(data.series.map((s) => [s.label, s.legend])).toEqual([
      ['AS13335', 'AS13335 Cloudflare, Inc.'],
      [REFERENCE_LABEL, REFERENCE_LABEL],
    ])
    expect(toCsv(data).split('\n')[0]).toBe('date,AS13335,max shell index')
  })
})

describe('shownVersions (IPv4 + IPv6 on one axis)', () => {
  const v6: SnapshotRow[] = [
    { date: '2010-01-01', max_shell_index: 12, unique_asns: 900 },
    { date: '2012-06-01', max_shell_index: 14, unique_asns: 1200 },
  ]
  const input = {
    range: { start: null, end: null },
    normalized: false,
    legend: (asn: string) => (asn === '3356' ? 'AS3356 Level 3' : `AS${asn}`),
    versions: [
      {
        version: 'ipv4' as const,
        snapshots,
        trends: [{ asn: '3356', points: [point('1998-01-01', 9, 9), point('2010-01-01', 51, 51)] }],
      },
      {
        version: 'ipv6' as const,
        snapshots: v6,
        trends: [{ asn: '3356', points: [point('2012-06-01', 7, 14)] }],
      },
    ],
  }

  it("draws each version on its own dates: a gap where the AS is absent, a line across the other version's dates", () => {
    const data = shownVersions(input)
    expect(data.dates).toEqual(['1998-01-01', '2005-01-01', '2010-01-01', '2012-06-01'])
    expect(data.series).toEqual([
      {
        label: 'AS3356 IPv4',
        legend: 'AS3356 Level 3 (IPv4)',
        values: [9, null, 51, undefined],
        version: 'ipv4',
        colour: 0,
      },
      {
        label: 'AS3356 IPv6',
        legend: 'AS3356 Level 3 (IPv6)',
        values: [undefined, undefined, null, 7],
        version: 'ipv6',
        colour: 0,
      },
      {
        label: 'max shell index IPv4',
        legend: 'max shell index (IPv4)',
        values: [9, 37, 51, undefined],
        reference: true,
        version: 'ipv4',
      },
      {
        label: 'max shell index IPv6',
        legend: 'max shell index (IPv6)',
        values: [undefined, undefined, 12, 14],
        reference: true,
        version: 'ipv6',
      },
    ])
    expect(heldPoints(data)['AS3356 IPv6']).toEqual([['2012-06-01', 7]])
    expect(toCsv(data).split('\n').slice(0, 2)).toEqual([
      'date,AS3356 IPv4,AS3356 IPv6,max shell index IPv4,max shell index IPv6',
      '1998-01-01,9,,9,',
    ])
  })

  it("holds exactly each version's API points, whatever dates the versions share", () => {
    const days = fc.uniqueArray(fc.integer({ min: 1, max: 400 }), { maxLength: 12 })
    fc.assert(
      fc.property(days, days, fc.array(fc.boolean(), { maxLength: 12 }), (d4, d6, mask) => {
        const rows = (ds: number[]) =>
          ds
            .map((d) => secondsToDate(d * 86400 * 30))
            .sort()
            .map((date, i) => ({ date, max_shell_index: i + 2, unique_asns: 1 }))
        const [r4, r6] = [rows(d4), rows(d6)]
        const pointsOf = (rs: SnapshotRow[]) =>
          rs.filter((_, i) => mask[i]).map((r) => point(r.date, 1, r.max_shell_index))
        const data = shownVersions({
          ...input,
          versions: [
            { version: 'ipv4', snapshots: r4, trends: [{ asn: '1', points: pointsOf(r4) }] },
            { version: 'ipv6', snapshots: r6, trends: [{ asn: '1', points: pointsOf(r6) }] },
          ],
        })
        const held = heldPoints(data)
        expect(held['AS1 IPv4']).toEqual(pointsOf(r4).map((p) => [p.date, 1]))
        expect(held['AS1 IPv6']).toEqual(pointsOf(r6).map((p) => [p.date, 1]))
        // A version's own snapshot date is never undefined, so its gaps stay gaps.
        const v6 = data.series[1]?.values ?? []
        data.dates.forEach((date, i) => {
          expect(v6[i] === undefined).toBe(!r6.some((r) => r.date === date))
        })
      }),
    )
  })
})

describe('date ↔ seconds', () => {
  it('round-trips every date from year 1 to 9999 at 00:00 UTC', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }),
        (d) => {
          const date = d.toISOString().slice(0, 10)
          expect(secondsToDate(dateToSeconds(date))).toBe(date)
        },
      ),
    )
    expect(dateToSeconds('1970-01-02')).toBe(86400)
  })
})
