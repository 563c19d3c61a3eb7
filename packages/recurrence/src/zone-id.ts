import { Temporal } from 'temporal-polyfill'

// A zone is an IANA name the runtime knows (its tz data, through Temporal) or a fixed offset
// `UTC±H[:MM]` of at most 14 hours. Temporal decides what a name means; nothing here holds
// an offset of its own.

const OFFSET_ZONE = /^UTC(?:([+-])(\d{1,2})(?::([0-5]\d))?)?$/
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]*$/
const MAX_OFFSET_MINUTES = 14 * 60

/** Minutes east of UTC for a fixed `UTC±H[:MM]` zone, or `undefined` for anything else. */
function fixedOffsetMinutes(zone: string): number | undefined {
  const m = OFFSET_ZONE.exec(zone)
  if (!m) return undefined
  if (!m[1]) return 0
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0)
  return m[1] === '-' ? -minutes : minutes
}

interface Zone {
  /** What Temporal calls it: an IANA name as the runtime spells it, `+05:30`. */
  temporal: string
  /** Its one spelling: the IANA name as the runtime spells it, `UTC+5:30`, `UTC`. */
  canonical: string
}

const resolved = new Map<string, Zone | null>()

/** What `zone` is, or `undefined` when it is no zone. */
function resolve(zone: string): Zone | undefined {
  let known = resolved.get(zone)
  if (known === undefined) {
    known = read(zone)
    // The runtime's zones do not change while it runs; the bound keeps junk names from
    // growing the map.
    if (resolved.size < 10_000) resolved.set(zone, known)
  }
  return known ?? undefined
}

function read(zone: string): Zone | null {
  const fixed = fixedOffsetMinutes(zone)
  if (fixed !== undefined) {
    const abs = Math.abs(fixed)
    if (abs > MAX_OFFSET_MINUTES) return null
    if (fixed === 0) return { temporal: 'UTC', canonical: 'UTC' }
    const [h, m] = [Math.floor(abs / 60), abs % 60]
    const sign = fixed < 0 ? '-' : '+'
    const p = (n: number) => String(n).padStart(2, '0')
    return {
      temporal: `${sign}${p(h)}:${p(m)}`,
      canonical: `UTC${sign}${h}${m === 0 ? '' : `:${p(m)}`}`,
    }
  }
  if (!IANA_NAME.test(zone)) return null
  try {
    const id = Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(zone).timeZoneId
    return { temporal: id, canonical: id }
  } catch {
    return null
  }
}

/**
 * True for an IANA zone name known to the runtime, in any letter case (`America/New_York`,
 * `europe/berlin`, `UTC`), or a fixed offset `UTC±H[:MM]` of at most 14 hours.
 */
export function isValidTimeZone(zone: string): boolean {
  return resolve(zone) !== undefined
}

/**
 * The one spelling of a valid zone ({@link isValidTimeZone}), or `undefined`: an IANA name as
 * the runtime spells it (`america/new_york` → `America/New_York`; an alias stays the alias,
 * `us/eastern` → `US/Eastern`, as Temporal keeps it), a fixed offset without padding or a zero
 * part (`UTC+05:00` → `UTC+5`, `UTC-0` → `UTC`).
 */
export function canonicalTimeZone(zone: string): string | undefined {
  return resolve(zone)?.canonical
}

/**
 * The Temporal time-zone id of a valid zone ({@link isValidTimeZone}): `UTC+5:30` → `+05:30`,
 * `europe/berlin` → `Europe/Berlin`. Throws `RangeError` for any other text.
 */
export function temporalZoneId(zone: string): string {
  const known = resolve(zone)
  if (!known) throw new RangeError(`unknown time zone ${zone}`)
  return known.temporal
}
