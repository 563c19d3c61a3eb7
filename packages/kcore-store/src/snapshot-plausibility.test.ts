import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  assertHasData,
  assertPlausibleSize,
  ImplausibleSnapshotError,
  neighboursOf,
} from './snapshot-plausibility.js'

/** AS counts biased to the edges: 0, 1, around 4 and around the largest real snapshots. */
const count = fc.oneof(
  fc.constantFrom(0, 1, 2, 3, 4, 5, 77_237, 2 ** 31 - 1),
  fc.integer({ min: 0, max: 200 }),
  fc.integer({ min: 0, max: 2 ** 31 - 1 }),
)
const day = fc
  .date({
    min: new Date('1998-01-01T00:00:00Z'),
    max: new Date('2030-12-31T00:00:00Z'),
    noInvalidDate: true,
  })
  .map((d) => d.toISOString().slice(0, 10))

describe('assertHasData', () => {
  it('refuses a snapshot without ASes or without links, naming the source', () => {
    for (const [asns, links] of [
      [0, 0],
      [1, 0],
      [0, 1],
    ] as const)
      expect(() => assertHasData('20050101.as-rel.txt.bz2', asns, links)).toThrow(
        new ImplausibleSnapshotError(
          `20050101.as-rel.txt.bz2 holds no data line (${asns} ASes, ${links} links); not stored`,
        ),
      )
  })
  it('takes the smallest real graph: two ASes, one link', () => {
    expect(() => assertHasData('x', 2, 1)).not.toThrow()
  })
})

describe('assertPlausibleSize', () => {
  it('refuses exactly when the count is under 25% of the smaller stored neighbour', () => {
    fc.assert(
      fc.property(count, fc.option(count), fc.option(count), (asns, older, newer) => {
        const near = {
          ...(older !== null && { older: { date: '2024-01-01', asns: older } }),
          ...(newer !== null && { newer: { date: '2024-03-01', asns: newer } }),
        }
        const sides = [older, newer].filter((n) => n !== null)
        const refused = sides.length > 0 && asns / Math.min(...sides) < 0.25
        const check = () => assertPlausibleSize('f', asns, near)
        if (refused) expect(check).toThrow(ImplausibleSnapshotError)
        else expect(check).not.toThrow()
      }),
    )
  })

  it('accepts exactly 25% and refuses one AS less, with the counts in the message', () => {
    const near = {
      older: { date: '2024-07-01', asns: 76_000 },
      newer: { date: '2024-09-01', asns: 80_000 },
    }
    expect(() => assertPlausibleSize('f', 19_000, near)).not.toThrow()
    expect(() => assertPlausibleSize('20240801.as-rel.txt.bz2', 18_999, near)).toThrow(
      "20240801.as-rel.txt.bz2 has 18999 ASes, under 25% of its stored neighbours' " +
        '(2024-07-01: 76000, 2024-09-01: 80000); not stored',
    )
  })

  it('accepts anything when no neighbour is stored', () => {
    expect(() => assertPlausibleSize('f', 1, {})).not.toThrow()
  })
})

describe('neighboursOf', () => {
  it('finds the nearest stored date on each side, never the date itself', () => {
    fc.assert(
      fc.property(fc.uniqueArray(day, { maxLength: 30 }), day, (dates, date) => {
        const stored = dates.map((d, i) => ({ date: d, unique_asns: i }))
        const near = neighboursOf(stored, date)
        const older = dates
          .filter((d) => d < date)
          .sort()
          .at(-1)
        const newer = dates.filter((d) => d > date).sort()[0]
        expect(near.older?.date).toBe(older)
        expect(near.newer?.date).toBe(newer)
        if (older) expect(near.older?.asns).toBe(dates.indexOf(older))
        if (newer) expect(near.newer?.asns).toBe(dates.indexOf(newer))
      }),
    )
  })
})
