import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { yearOfWall } from '../src/wall-clock.js'

describe('yearOfWall', () => {
  it('is the Date year of every wall second 1000..9999, at year edges too', () => {
    const edge = fc
      .tuple(fc.integer({ min: 999, max: 10000 }), fc.integer({ min: -86_400, max: 86_400 }))
      .map(([y, s]) => {
        const d = new Date(0)
        d.setUTCFullYear(y, 0, 1)
        return d.getTime() / 1000 + s
      })
    const any = fc.integer({ min: Date.UTC(999, 0, 1) / 1000, max: Date.UTC(10001, 0, 1) / 1000 })
    fc.assert(
      fc.property(fc.oneof(edge, any), (wall) => {
        expect(yearOfWall(wall)).toBe(new Date(wall * 1000).getUTCFullYear())
      }),
      { numRuns: 20_000 },
    )
  })
})
