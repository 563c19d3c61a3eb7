import { propertyRuns } from '@kcore/db/testing'
import fc from 'fast-check'
import { Temporal } from 'temporal-polyfill'
import { describe, expect, it } from 'vitest'
import { plainToWall, wallToPlain, ZoneClock } from '../src/wall-clock.js'

// ZoneClock converts by arithmetic away from a zone's transitions: every answer must be the
// one Temporal gives, per RFC 5545 (a gap moves forward, an overlap is the first instant),
// for every zone, at the transitions themselves and seconds around them, in any year. The
// window bounds are defined by bisection over Temporal's conversion alone: walls in a gap map
// onto the instants after it (the map is not monotonic there), so the bounds are walls
// outside gaps, found on the monotonic map that puts a gap's walls at its transition.

const reference = (zoneId: string) => {
  const plain = (wall: number) => wallToPlain(wall)
  const instantMs = (wall: number) =>
    plain(wall).toZonedDateTime(zoneId, { disambiguation: 'compatible' }).epochMilliseconds
  const wallAt = (ms: number) =>
    plainToWall(
      Temporal.Instant.fromEpochMilliseconds(Math.floor(ms / 1000) * 1000).toZonedDateTimeISO(
        zoneId,
      ),
    )
  /** The transition instant of the gap `wall` is in, or undefined outside gaps. */
  const gapAt = (wall: number) => {
    // A wall the clocks never show: its instant shows another wall.
    if (wallAt(instantMs(wall)) === wall) return undefined
    const earlier = plain(wall).toZonedDateTime(zoneId, { disambiguation: 'earlier' })
    return earlier.getTimeZoneTransition('next')?.epochMilliseconds
  }
  const monotonic = (wall: number) => gapAt(wall) ?? instantMs(wall)
  const bisect = (ms: number, below: (instant: number) => boolean) => {
    let [lo, hi] = [Math.floor(ms / 1000) - 2 * 86400, Math.floor(ms / 1000) + 2 * 86400]
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2)
      if (below(monotonic(mid))) lo = mid
      else hi = mid
    }
    return [lo, hi] as const
  }
  return {
    instantMs,
    wallAt,
    gapAt,
    /** The last wall outside a gap with instant ≤ ms. */
    lastWallAtOrBefore: (ms: number) => bisect(ms, (t) => t <= ms)[0],
    /** The first wall outside a gap with instant ≥ ms: a gap wall gives way to the gap's end. */
    firstWallAtOrAfter(ms: number) {
      const hi = bisect(ms, (t) => t < ms)[1]
      const at = gapAt(hi)
      return at === undefined ? hi : wallAt(at)
    },
  }
}

const ZONES = [
  ...Intl.supportedValuesOf('timeZone'),
  'UTC',
  'America/Havana',
  'Pacific/Apia', // skipped 2011-12-30
  'Australia/Lord_Howe',
  'UTC+5:30',
  'UTC-3',
]

/** An instant near one of the zone's transitions in a year (or anywhere in it). */
const nearTransition = fc
  .record({
    zone: fc.constantFrom(...ZONES),
    year: fc.oneof(
      fc.integer({ min: 1000, max: 9999 }),
      fc.integer({ min: 1880, max: 2040 }),
      fc.constantFrom(1000, 1970, 2011, 2026, 9999),
    ),
    nth: fc.integer({ min: 0, max: 3 }),
    delta: fc.oneof(
      fc.integer({ min: -5, max: 5 }).map((s) => s * 1000),
      fc.integer({ min: -4 * 86400, max: 4 * 86400 }).map((s) => s * 1000),
      fc.integer({ min: -3 * 86400_000 - 2, max: -3 * 86400_000 + 2 }),
      fc.integer({ min: 3 * 86400_000 - 2, max: 3 * 86400_000 + 2 }),
      fc.integer({ min: -1000, max: 1000 }),
    ),
    anywhere: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  .map(({ zone, year, nth, delta, anywhere }) => {
    const clock = new ZoneClock(zone)
    const first = new Date(0)
    first.setUTCFullYear(year, 0, 1)
    let z = Temporal.Instant.fromEpochMilliseconds(first.getTime()).toZonedDateTimeISO(clock.zoneId)
    for (let i = 0; i <= nth; i++) {
      const t = z.getTimeZoneTransition('next')
      if (!t || t.year > year) break
      z = t
    }
    const base =
      z.epochMilliseconds === first.getTime()
        ? first.getTime() + Math.floor(anywhere * 365 * 86400) * 1000
        : z.epochMilliseconds
    const max = Date.UTC(9999, 11, 31, 23, 59, 59)
    return { zone, ms: Math.min(max, Math.max(Date.UTC(1000, 0, 2), base + delta)) }
  })

describe('ZoneClock against Temporal', () => {
  it('converts walls and instants as Temporal does, at and around transitions', () => {
    fc.assert(
      fc.property(nearTransition, ({ zone, ms }) => {
        const clock = new ZoneClock(zone)
        const ref = reference(clock.zoneId)
        const wall = Math.floor(ms / 1000)
        expect(clock.instantMs(wall)).toBe(ref.instantMs(wall))
        expect(clock.wallAt(ms)).toBe(ref.wallAt(ms))
        const last = ref.lastWallAtOrBefore(ms)
        expect(clock.lastWallAtOrBefore(ms)).toBe(last)
        const first = ref.firstWallAtOrAfter(ms)
        expect(clock.firstWallAtOrAfter(ms)).toBe(first)
        expect([ref.gapAt(last), ref.gapAt(first)]).toEqual([undefined, undefined])
        // The gaps the clock reports near `ms` are the ones Temporal has there.
        for (const g of clock.gapsNear(ms)) {
          expect([ref.gapAt(g.start - 1), ref.gapAt(g.start), ref.gapAt(g.end - 1)]).toEqual([
            undefined,
            g.at,
            g.at,
          ])
          expect(ref.gapAt(g.end)).toBeUndefined()
        }
      }),
      { numRuns: propertyRuns(800, 200) },
    )
  })
})
