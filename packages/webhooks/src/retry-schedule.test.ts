import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DEFAULT_RETRY_DELAYS_MS, nextAttemptAt } from './retry-schedule.js'

const HOUR = 3_600_000

describe('retry schedule', () => {
  it('spreads eight attempts over about a day, each wait longer or equal', () => {
    const total = DEFAULT_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0)
    expect(total).toBeGreaterThan(24 * HOUR)
    expect(total).toBeLessThan(30 * HOUR)
    expect(DEFAULT_RETRY_DELAYS_MS.length + 1).toBe(8)
    for (let i = 1; i < DEFAULT_RETRY_DELAYS_MS.length; i++)
      expect(DEFAULT_RETRY_DELAYS_MS[i]).toBeGreaterThanOrEqual(DEFAULT_RETRY_DELAYS_MS[i - 1]!)
  })

  it('waits the n-th delay after the n-th failure, and gives up after the last', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 10 * HOUR }), { maxLength: 10 }),
        fc.integer({ min: 1, max: 12 }),
        fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }),
        (delays, attempts, failedAt) => {
          const next = nextAttemptAt(attempts, failedAt, delays)
          if (attempts > delays.length) expect(next).toBeUndefined()
          else expect(next?.getTime()).toBe(failedAt.getTime() + delays[attempts - 1]!)
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    )
    expect(nextAttemptAt(1, new Date(0))?.getTime()).toBe(5000)
    expect(nextAttemptAt(8, new Date(0))).toBeUndefined()
  })
})
