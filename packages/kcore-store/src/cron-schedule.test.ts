import { describe, expect, it } from 'vitest'
import { parseCronSchedule } from './cron-schedule.js'
import { KcoreConfigError } from './errors.js'

describe('parseCronSchedule', () => {
  it.each(['0 6 * * *', ' */15 * * * 1-5 ', '0 0 1 * *', '30 2 * jan,jul sun'])(
    'accepts %j',
    (expression) => {
      expect(parseCronSchedule(expression)).toBe(expression.trim())
    },
  )

  it.each([
    ['0 6 * *', /five fields.*got 4/],
    ['0 0 6 * * *', /five fields.*got 6/],
    ['', /got 0/],
    ['@daily', /got 1/],
    ['61 * * * *', /61 \* \* \* \*/],
    ['0 25 * * *', /Invalid scheduler cron expression/],
    ['a b c d e', /Invalid scheduler cron expression/],
  ])('refuses %j with a KcoreConfigError', (expression, message) => {
    expect(() => parseCronSchedule(expression)).toThrow(KcoreConfigError)
    expect(() => parseCronSchedule(expression)).toThrow(message)
  })
})
