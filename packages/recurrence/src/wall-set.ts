/**
 * The occurrences of a series as a sorted set of nominal wall seconds (the wall time the rules
 * produce, before a DST gap moves it): what the zone-free part of the module answers.
 */
export interface WallSet {
  /** Walls in [from, to], ascending, at most `limit`. */
  list(from: number, to: number, limit: number): number[]
  /** How many walls lie in [from, to]. */
  count(from: number, to: number): number
  /** The n-th (0-based) wall ≥ `from`, or undefined. */
  nth(from: number, n: number): number | undefined
  has(wall: number): boolean
}
