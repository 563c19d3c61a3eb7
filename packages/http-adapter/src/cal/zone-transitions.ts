import { zoneOffsetMinutes } from '@cal/store'
import { LRUCache } from 'lru-cache'
import { Temporal } from 'temporal-polyfill'

/** One change of a zone's UTC offset, as the runtime's zone data (Temporal) has it. */
export interface ZoneTransition {
  /** The instant of the change (epoch ms). */
  atMs: number
  /** Offsets before and after, in seconds east of UTC (LMT eras have seconds). */
  fromS: number
  toS: number
}

/** The store's fixed offsets (`UTC`, `UTC+5:30`): no transitions, ever. */
export const isFixedZone = (zone: string) => /^UTC([+-]|$)/.test(zone)

/** 00:00 UTC of 1 January of `year` (Date.UTC would read years 0-99 as 19xx). */
const yearStartMs = (year: number) => new Date(0).setUTCFullYear(year, 0, 1)

/**
 * A zone's transitions of one UTC year, by zone and year: the zone data does not change while
 * the process runs, and Temporal's polyfill takes about half a millisecond per transition.
 */
const DAY_MS = 86_400_000

const years = new LRUCache<string, ZoneTransition[]>({ max: 20_000 })

function transitionsOfYear(zone: string, year: number): ZoneTransition[] {
  const key = `${zone}\u0000${year}`
  let found = years.get(key)
  if (found) return found
  found = []
  const endMs = yearStartMs(year + 1)
  let at: Temporal.ZonedDateTime | null = Temporal.Instant.fromEpochMilliseconds(
    yearStartMs(year) - 1,
  ).toZonedDateTimeISO(zone)
  for (;;) {
    const next: Temporal.ZonedDateTime | null = at.getTimeZoneTransition('next')
    if (!next || next.epochMilliseconds >= endMs) break
    found.push({
      atMs: next.epochMilliseconds,
      fromS: at.offsetNanoseconds / 1e9,
      toS: next.offsetNanoseconds / 1e9,
    })
    at = next
  }
  years.set(key, found)
  return found
}

/** The zone's transitions with `fromMs <= atMs <= toMs`, ascending. */
export function transitionsBetween(zone: string, fromMs: number, toMs: number): ZoneTransition[] {
  if (isFixedZone(zone) || toMs < fromMs) return []
  const out: ZoneTransition[] = []
  const last = new Date(toMs).getUTCFullYear()
  for (let year = new Date(fromMs).getUTCFullYear(); year <= last; year++) {
    for (const t of transitionsOfYear(zone, year)) {
      if (t.atMs >= fromMs && t.atMs <= toMs) out.push(t)
    }
  }
  return out
}

/** The last transition before `atMs`, or undefined when the zone had none (LMT, UTC). */
export function transitionBefore(zone: string, atMs: number): ZoneTransition | undefined {
  if (isFixedZone(zone)) return undefined
  const here = Temporal.Instant.fromEpochMilliseconds(atMs).toZonedDateTimeISO(zone)
  const previous = here.getTimeZoneTransition('previous')
  if (!previous) return undefined
  const before = previous.subtract({ nanoseconds: 1 })
  return {
    atMs: previous.epochMilliseconds,
    fromS: before.offsetNanoseconds / 1e9,
    toS: previous.offsetNanoseconds / 1e9,
  }
}

/** `atMs` on the wall clock of an IANA `zone`. */
export function zonedAt(zone: string, atMs: number): Temporal.ZonedDateTime {
  return Temporal.Instant.fromEpochMilliseconds(atMs).toZonedDateTimeISO(zone)
}

/** The zone's offset at `atMs`, in seconds east of UTC. */
export function offsetSecondsAt(zone: string, atMs: number): number {
  if (isFixedZone(zone)) return zoneOffsetMinutes(new Date(atMs), zone) * 60
  const before = transitionsBetween(zone, atMs - 2 * DAY_MS, atMs).at(-1)
  if (before) return before.toS
  const after = transitionsBetween(zone, atMs + 1, atMs + 2 * DAY_MS)[0]
  if (after) return after.fromS
  return zonedAt(zone, atMs).offsetNanoseconds / 1e9
}

/**
 * True when the wall time `atMs` shows in `zone` is shown twice (a fall-back overlap): written
 * with its TZID, a reader could take the other instant.
 */
export function isRepeatedWall(zone: string, atMs: number): boolean {
  const wallMs = atMs + offsetSecondsAt(zone, atMs) * 1000
  return transitionsBetween(zone, atMs - 2 * DAY_MS, atMs + 2 * DAY_MS).some(
    (t) => t.toS < t.fromS && wallMs >= t.atMs + t.toS * 1000 && wallMs < t.atMs + t.fromS * 1000,
  )
}
