/**
 * A small seeded PRNG (mulberry32) so generated calendars are the same on every run: `next()`
 * in [0, 1), and helpers drawing from it.
 */
export function prng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    /** An integer in [lo, hi]. */
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chance: (p: number) => next() < p,
    /** Each item kept with probability `p`, in order. */
    some: <T>(items: readonly T[], p: number): T[] => items.filter(() => next() < p),
  }
}

/** A {@link prng} instance. */
export type Prng = ReturnType<typeof prng>

/** Words generated titles and descriptions are made of (search tests and benchmarks query them). */
export const SAMPLE_WORDS: readonly string[] = [
  'jazz',
  'opera',
  'market',
  'lecture',
  'yoga',
  'film',
  'chess',
  'poetry',
  'salsa',
  'robotics',
]
