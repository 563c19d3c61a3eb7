import { describe, expect, it } from 'vitest'
import { normalizedShell } from './normalized-shell.js'

describe('normalizedShell', () => {
  it('is shell over max, in [0, 1], and 0 (never NaN) when the max is 0', () => {
    expect(normalizedShell(33, 66)).toBe(0.5)
    expect(normalizedShell(66, 66)).toBe(1)
    expect(normalizedShell(0, 0)).toBe(0)
    expect(normalizedShell(1, 3)).toBe(1 / 3)
  })
})
