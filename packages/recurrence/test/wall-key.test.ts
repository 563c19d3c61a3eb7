import { describe, expect, it } from 'vitest'
import { parseWallTime, wallKey } from '../src/index.js'

const keyOf = (text: string) => wallKey(parseWallTime(text, true) as number)

describe('wallKey', () => {
  it('counts wall minutes from 1000-01-01, seconds dropped', () => {
    expect(keyOf('1000-01-01 00:00:00')).toBe(0)
    expect(keyOf('1000-01-01 00:01:59')).toBe(1)
    expect(keyOf('1000-01-02')).toBe(1440)
    expect(keyOf('9999-12-31 23:59:00')).toBeLessThan(2 ** 33)
    // 1000 and 1900 are not leap years in the proleptic Gregorian calendar; 2000 is.
    expect(keyOf('1001-01-01 00:00:00')).toBe(365 * 1440)
    expect(keyOf('1900-03-01 00:00:00') - keyOf('1900-02-28 00:00:00')).toBe(1440)
    expect(keyOf('2000-03-01 00:00:00') - keyOf('2000-02-28 00:00:00')).toBe(2 * 1440)
  })
})
