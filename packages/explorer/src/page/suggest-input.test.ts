import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_SEARCH_CHARS, moveActive, searchTextOf } from './suggest-input.js'

describe('searchTextOf', () => {
  it('searches a name or a single number, never a list of ASNs or nothing', () => {
    expect(searchTextOf('  cloud ')).toBe('cloud')
    expect(searchTextOf('13335')).toBe('13335')
    expect(searchTextOf('AS13335')).toBe('AS13335')
    expect(searchTextOf('Level 3')).toBe('Level 3')
    expect(searchTextOf('3356, 174 AS15169')).toBeNull()
    expect(searchTextOf('')).toBeNull()
    expect(searchTextOf(' \t')).toBeNull()
    expect(searchTextOf('%')).toBe('%')
  })

  it('stays within the API bound without splitting a character', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), (typed) => {
        const text = searchTextOf(typed)
        if (text === null) return
        expect(Array.from(text).length).toBeLessThanOrEqual(MAX_SEARCH_CHARS)
        expect(text).not.toMatch(/[\ud800-\udbff]$/)
        expect(text.length).toBeGreaterThan(0)
      }),
    )
    expect(searchTextOf('😀'.repeat(300))).toBe('😀'.repeat(MAX_SEARCH_CHARS))
  })
})

describe('moveActive', () => {
  it('walks the options with the arrows, through "none" at either end', () => {
    expect(moveActive(-1, 'ArrowDown', 3)).toBe(0)
    expect(moveActive(2, 'ArrowDown', 3)).toBe(-1)
    expect(moveActive(-1, 'ArrowUp', 3)).toBe(2)
    expect(moveActive(0, 'ArrowUp', 3)).toBe(-1)
    expect(moveActive(1, 'Home', 3)).toBe(1)
    expect(moveActive(1, 'a', 3)).toBe(1)
    expect(moveActive(0, 'ArrowDown', 0)).toBe(-1)
  })

  it('always lands on an option or on none', () => {
    const key = fc.constantFrom('ArrowDown', 'ArrowUp', 'Home', 'End', 'x')
    fc.assert(
      fc.property(fc.nat(30), fc.array(key), (count, keys) => {
        let active = -1
        for (const k of keys) {
          active = moveActive(active, k, count)
          expect(active).toBeGreaterThanOrEqual(-1)
          expect(active).toBeLessThan(Math.max(count, 0))
        }
      }),
    )
  })
})
