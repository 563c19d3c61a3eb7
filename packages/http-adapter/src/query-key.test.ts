import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { queryKey } from './query-key.js'

/** Names biased to the characters that matter here: brackets and nothing. */
const name = fc.stringMatching(/^[a-z_[\]]{0,6}$/)
const plain = fc.stringMatching(/^[a-z_]{1,12}$/)

describe('queryKey', () => {
  it('files `key[]` and `key[anything]` under `key`', () => {
    expect(queryKey('categories[]')).toBe('categories')
    expect(queryKey('status[0]')).toBe('status')
    expect(queryKey('tags[x]')).toBe('tags')
    fc.assert(
      fc.property(plain, fc.stringMatching(/^[a-z0-9]{0,4}$/), (key, index) => {
        expect(queryKey(`${key}[${index}]`)).toBe(key)
      }),
    )
  })

  it('leaves plain, bare-bracket and nested keys as they are', () => {
    for (const key of ['', '[]', '[0]', 'a[b][c]', 'a[', 'a]', 'a[]x', '[]a', 'a[[]]']) {
      expect(queryKey(key)).toBe(key)
    }
    fc.assert(
      fc.property(plain, (key) => {
        expect(queryKey(key)).toBe(key)
      }),
    )
  })

  it('drops at most one bracket pair and never returns an empty name for a bracketed key', () => {
    fc.assert(
      fc.property(name, (key) => {
        const out = queryKey(key)
        expect(out === key || key === `${out}${key.slice(out.length)}`).toBe(true)
        expect(out.length > 0 || key === '').toBe(true)
        if (out !== key) expect(out).not.toMatch(/[[\]]/)
      }),
    )
  })
})
