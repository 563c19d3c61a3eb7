import { CalValidationError } from './errors.js'

const OFFSET_ZONE = /^UTC(?:([+-])(\d{1,2})(?::([0-5]\d))?)?$/
const formatters = new Map<string, Intl.DateTimeFormat>()

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    formatters.set(zone, f)
  }
  return f
}

/** Minutes east of UTC for a fixed `UTC±H[:MM]` zone, or `undefined` for anything else. */
function fixedOffsetMinutes(zone: string): number | undefined {
  const m = OFFSET_ZONE.exec(zone)
  if (!m) return undefined
  if (!m[1]) return 0
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0)
  return m[1] === '-' ? -minutes : minutes
}

/**
 * True for an IANA zone name known to the runtime (`America/New_York`, `UTC`) or a fixed offset
 * `UTC±H[:MM]` with hours ≤ 14.
 */
export function isValidTimeZone(zone: string): boolean {
  const fixed = fixedOffsetMinutes(zone)
  if (fixed !== undefined) return Math.abs(fixed) <= 14 * 60
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone)) return false
  try {
    formatter(zone)
    return true
  } catch {
    return false
  }
}

/** Throws `CalValidationError` on `field` unless {@link isValidTimeZone}. */
export function assertTimeZone(zone: string, field = 'timezone'): void {
  if (!isValidTimeZone(zone)) throw new CalValidationError(field, `unknown time zone ${zone}`)
}

/** Wall-clock parts of a local date-time (month 1-12). */
export interface LocalDateTime {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
}

/** The wall-clock time of `instant` in `zone` (IANA or `UTC±H[:MM]`). */
export function toLocalDateTime(instant: Date, zone: string): LocalDateTime {
  const fixed = fixedOffsetMinutes(zone)
  if (fixed !== undefined) {
    const d = new Date(instant.getTime() + fixed * 60_000)
    return {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: d.getUTCHours(),
      minute: d.getUTCMinutes(),
      second: d.getUTCSeconds(),
    }
  }
  const parts: Record<string, number> = {}
  for (const p of formatter(zone).formatToParts(instant)) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value)
  }
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  }
}

/** Offset of `zone` from UTC at `instant`, in minutes east (New York in winter: -300). */
export function zoneOffsetMinutes(instant: Date, zone: string): number {
  const l = toLocalDateTime(instant, zone)
  const asUtc = Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second)
  const whole = Math.floor(instant.getTime() / 1000) * 1000
  return Math.round((asUtc - whole) / 60_000)
}

/**
 * The UTC instant at which clocks in `zone` show `local`. A wall time skipped by a DST jump
 * maps forward by the jump (02:30 on a spring-forward day in New York → 03:30 EDT); a repeated
 * wall time (fall back) maps to its first occurrence.
 */
export function fromLocalDateTime(local: LocalDateTime, zone: string): Date {
  const wall = Date.UTC(
    local.year,
    local.month - 1,
    local.day,
    local.hour,
    local.minute,
    local.second,
  )
  const fixed = fixedOffsetMinutes(zone)
  if (fixed !== undefined) return new Date(wall - fixed * 60_000)
  // Offsets a day before and after bracket every transition near this wall time.
  const before = zoneOffsetMinutes(new Date(wall - 86_400_000), zone)
  const after = zoneOffsetMinutes(new Date(wall + 86_400_000), zone)
  const candidates = [...new Set([before, after])]
    .map((offset) => wall - offset * 60_000)
    .filter((t) => zoneOffsetMinutes(new Date(t), zone) * 60_000 === wall - t)
    .sort((a, b) => a - b)
  if (candidates[0] !== undefined) return new Date(candidates[0])
  // In a gap: shift by the offset in force before the jump (moves the time forward).
  return new Date(wall - before * 60_000)
}

/** `YYYY-MM-DD HH:MM:SS` of `instant` in `zone`. */
export function formatLocalDateTime(instant: Date, zone: string): string {
  const l = toLocalDateTime(instant, zone)
  const p = (n: number, w = 2) => String(n).padStart(w, '0')
  return `${p(l.year, 4)}-${p(l.month)}-${p(l.day)} ${p(l.hour)}:${p(l.minute)}:${p(l.second)}`
}
