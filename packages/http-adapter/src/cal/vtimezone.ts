import { isValidTimeZone, timezoneAbbreviation } from '@cal/store'
import {
  isFixedZone,
  offsetSecondsAt,
  transitionBefore,
  transitionsBetween,
  type ZoneTransition,
} from './zone-transitions.js'

/**
 * Past this instant the zone data is the rule the runtime extrapolates (tz data lists its
 * changes to 2087 at most): the last yearly rules are written open-ended instead.
 */
const HORIZON_MS = Date.UTC(2200, 0, 1)
/** Years after the span whose transitions must follow a rule for it to be written open-ended. */
const VERIFY_YEARS = 8
const YEAR_MS = 366 * 86_400_000
const LAST_MS = Date.UTC(9999, 11, 1)

const p2 = (n: number) => String(n).padStart(2, '0')

/** `+0530`, `-045602`: RFC 5545 utc-offset, seconds only when there are any. */
function utcOffset(seconds: number): string {
  const a = Math.abs(seconds)
  const s = a % 60
  return `${seconds < 0 ? '-' : '+'}${p2(Math.floor(a / 3600))}${p2(Math.floor(a / 60) % 60)}${s ? p2(s) : ''}`
}

/** `YYYYMMDDTHHMMSS` of the UTC fields of `ms` (a wall time read as UTC, or an instant + `Z`). */
function stamp(ms: number): string {
  const d = new Date(ms)
  return `${String(d.getUTCFullYear()).padStart(4, '0')}${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())}T${p2(d.getUTCHours())}${p2(d.getUTCMinutes())}${p2(d.getUTCSeconds())}`
}

/** A transition with what its VTIMEZONE observance says: onset wall time and name. */
interface Onset extends ZoneTransition {
  /** The onset as wall time in the offset before it, read as UTC fields (RFC 5545 DTSTART). */
  wallMs: number
  name: string
  kind: string
  /** A temporary gain the zone gives back within a year (summer time): a DAYLIGHT observance. */
  daylight: boolean
}

/** The yearly rules an onset fits: `2SU` (second Sunday of its month) and/or `-1SU` (last). */
function yearlyDays(wallMs: number): string[] {
  const d = new Date(wallMs)
  const day = d.getUTCDate()
  const weekday = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'][d.getUTCDay()]
  const monthDays = new Date(
    new Date(0).setUTCFullYear(d.getUTCFullYear(), d.getUTCMonth() + 1, 0),
  ).getUTCDate()
  const days: string[] = []
  if (day <= 28) days.push(`${Math.ceil(day / 7)}${weekday}`)
  if (day > monthDays - 7) days.push(`-1${weekday}`)
  return days
}

/** Same month and time of day, one year after `a`. */
function nextYearSameSlot(a: number, b: number): boolean {
  const x = new Date(a)
  const y = new Date(b)
  return (
    y.getUTCFullYear() === x.getUTCFullYear() + 1 &&
    y.getUTCMonth() === x.getUTCMonth() &&
    y.getUTCHours() * 3600 + y.getUTCMinutes() * 60 + y.getUTCSeconds() ===
      x.getUTCHours() * 3600 + x.getUTCMinutes() * 60 + x.getUTCSeconds()
  )
}

/** Consecutive yearly onsets of one kind that one RRULE describes exactly. */
interface Run {
  onsets: Onset[]
  days: string[]
}

function runsOf(onsets: Onset[]): Run[] {
  const runs: Run[] = []
  const open = new Map<string, Run>()
  for (const onset of onsets) {
    const days = yearlyDays(onset.wallMs)
    const run = open.get(onset.kind)
    const last = run?.onsets.at(-1)
    const shared = run ? run.days.filter((d) => days.includes(d)) : []
    if (run && last && shared.length > 0 && nextYearSameSlot(last.wallMs, onset.wallMs)) {
      run.onsets.push(onset)
      run.days = shared
      continue
    }
    const fresh = { onsets: [onset], days }
    runs.push(fresh)
    open.set(onset.kind, fresh)
  }
  return runs
}

function observance(run: Run | Onset[], openEnded: boolean): string[] {
  const onsets = Array.isArray(run) ? run : run.onsets
  const [first] = onsets as [Onset]
  const last = onsets.at(-1) as Onset
  const type = first.daylight ? 'DAYLIGHT' : 'STANDARD'
  const lines = [`BEGIN:${type}`, `DTSTART:${stamp(first.wallMs)}`]
  if (!Array.isArray(run) && (onsets.length > 1 || openEnded)) {
    const month = new Date(first.wallMs).getUTCMonth() + 1
    const until = openEnded ? '' : `;UNTIL=${stamp(last.atMs)}Z`
    lines.push(`RRULE:FREQ=YEARLY;BYMONTH=${month};BYDAY=${run.days[0]}${until}`)
  }
  lines.push(
    `TZOFFSETFROM:${utcOffset(first.fromS)}`,
    `TZOFFSETTO:${utcOffset(first.toS)}`,
    `TZNAME:${first.name}`,
    `END:${type}`,
  )
  return lines
}

function onsetOf(zone: string, t: ZoneTransition, next: ZoneTransition | undefined): Onset {
  // Named a second in: the store names the instant of a zone's first transition LMT.
  const name = timezoneAbbreviation(new Date(t.atMs + 1000), zone)
  const daylight = t.toS > t.fromS && !!next && next.toS < t.toS && next.atMs - t.atMs < YEAR_MS
  return {
    ...t,
    wallMs: t.atMs + t.fromS * 1000,
    name,
    kind: `${t.fromS}|${t.toS}|${name}|${daylight}`,
    daylight,
  }
}

/**
 * The VTIMEZONE of `zone` for a feed whose instants lie in [fromMs, toMs], from the runtime's
 * zone data: the observance in force at `fromMs` (from its transition, or from year 1000 when
 * the zone had none before), then every transition up to `toMs` with its offsets and name.
 * Yearly runs of one kind of change on the same weekday rule become one RRULE observance, and
 * the rules still in force after the span are written open-ended (verified for
 * {@link VERIFY_YEARS} more years), so a client that expands a series past the span keeps the
 * zone's current rules. `null` for UTC, whose times the feed writes with `Z`, and for a zone
 * the runtime does not know.
 */
export function vtimezone(zone: string, fromMs: number, toMs: number): string | null {
  if (zone === 'UTC' || !isValidTimeZone(zone)) return null
  const lines = ['BEGIN:VTIMEZONE', `TZID:${zone}`]
  const before = transitionBefore(zone, fromMs + 1)
  // Up to the horizon, or ten years for a span that starts past it.
  const endMs = Math.min(Math.max(toMs, fromMs), Math.max(fromMs + 10 * YEAR_MS, HORIZON_MS))
  // Never past the last year a date can have (UNTIL and DTSTART have four-digit years).
  const verifyEndMs = Math.min(endMs + VERIFY_YEARS * YEAR_MS, LAST_MS)
  const later = transitionsBetween(zone, fromMs + 1, verifyEndMs)
  const changes = [...(before ? [before] : []), ...later]
  const onsets = changes.map((t, i) => onsetOf(zone, t, changes[i + 1]))
  if (!before) {
    const offset = offsetSecondsAt(zone, fromMs)
    const name = isFixedZone(zone) ? zone : timezoneAbbreviation(new Date(fromMs), zone)
    const wallMs = new Date(0).setUTCFullYear(1000, 0, 1)
    lines.push(
      ...observance(
        [{ atMs: wallMs, fromS: offset, toS: offset, wallMs, name, kind: '', daylight: false }],
        false,
      ),
    )
  }
  const verifyFromMs = verifyEndMs - YEAR_MS
  for (const run of runsOf(onsets)) {
    const [first] = run.onsets as [Onset]
    const last = run.onsets.at(-1) as Onset
    if (first.atMs > endMs) continue
    // Still in force at the end of the verified years: the zone keeps this rule.
    lines.push(...observance(run, run.onsets.length > 1 && last.atMs >= verifyFromMs))
  }
  lines.push('END:VTIMEZONE')
  return lines.join('\r\n')
}
