import { describe, expect, it } from 'vitest'
import { firstFreeSlug, slugify } from './slug.js'

describe('slugify', () => {
  it('folds accents, lowercases and joins words with dashes', () => {
    expect(slugify('Café Crème — Brûlée!', 'x')).toBe('cafe-creme-brulee')
    expect(slugify('  Ünïcödé   Fête  ', 'x')).toBe('unicode-fete')
    expect(slugify('Straße Øresund', 'x')).toBe('strasse-oresund')
    expect(slugify('Jazz & Blues 2026', 'x')).toBe('jazz-blues-2026')
  })
  it('falls back when nothing is left', () => {
    expect(slugify('!!!', 'event')).toBe('event')
    expect(slugify('東京', 'venue')).toBe('venue')
  })
  it('caps the length without a trailing dash', () => {
    const slug = slugify(`${'a'.repeat(189)} b`, 'x')
    expect(slug).toBe('a'.repeat(189))
  })
})

describe('firstFreeSlug', () => {
  it('suffixes -2, -3 and fills gaps', () => {
    expect(firstFreeSlug('a', new Set())).toBe('a')
    expect(firstFreeSlug('a', new Set(['a']))).toBe('a-2')
    expect(firstFreeSlug('a', new Set(['a', 'a-2', 'a-4']))).toBe('a-3')
  })
})
