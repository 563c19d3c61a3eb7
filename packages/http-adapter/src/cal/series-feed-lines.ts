import { type CalEvent, checkRecurrence, type RecurrenceInput } from '@cal/store'
import { durationExactInZone, utcStamp, wallStamp } from './feed-times.js'
import { icalMisexpands } from './ical-rule-trouble.js'
import { isFixedZone, offsetSecondsAt, transitionsBetween } from './zone-transitions.js'

type Recurrence = ReturnType<typeof checkRecurrence>
type Occurrence = ReturnType<Recurrence['between']>[number]

/** Most occurrences a series' VEVENT names one by one; past it the feed writes the rule alone. */
export const MAX_EXPLICIT_OCCURRENCES = 5000
const DAY_MS = 86_400_000
/** No window end (an `include` list): occurrences are looked at up to here. */
const LAST_LOOKED_AT_MS = Date.UTC(2200, 0, 1)

/** The instants a feed's window covers: occurrences overlapping [fromMs, toMs]. */
export interface FeedWindow {
  fromMs?: number
  toMs?: number
}

/** The occurrence of `r` whose wall time (as the rules name it) is `wall`, if any. */
function byWall(r: Recurrence, wall: string): Occurrence | undefined {
  const asUtc = Date.parse(`${wall.replace(' ', 'T')}Z`)
  return r.between(asUtc - 2 * DAY_MS, asUtc + 2 * DAY_MS).find((o) => o.wall === wall)
}

/** The occurrence of `r` that starts at `ms`, if any. */
function startingAt(r: Recurrence, ms: number): Occurrence | undefined {
  return r.between(ms, ms).find((o) => o.startMs === ms)
}

/** The lines of a series' own VEVENT after DTSTART: RRULE/RDATE/EXDATE, DURATION. */
export interface SeriesLines {
  repeating: string
  /** Starts of occurrences written in UTC: an override names those in UTC too. */
  utcStarts: ReadonlySet<number>
  /** RFC 5545 DURATION (exact seconds), written instead of DTEND for a timed series. */
  duration?: string
}

/**
 * A series as the feed writes it, so that a client expanding it over the feed's window gets
 * exactly the occurrences the JSON list gives:
 * - its rules, rdates and exdates, an EXDATE for each edited occurrence the feed does not carry
 *   and none naming no occurrence (ical.js then skips the next one);
 * - an occurrence no reader can place from its wall time (moved by a DST gap, a wall time shown
 *   twice, an offset with seconds, a clock change before its end) as an EXDATE of its wall time
 *   and an RDATE of its UTC instant;
 * - a rule ical.js expands differently ({@link icalMisexpands}) as the window's occurrences
 *   themselves, up to {@link MAX_EXPLICIT_OCCURRENCES} (past that, the rule).
 */
export function seriesLines(
  series: CalEvent,
  window: FeedWindow,
  carried: ReadonlySet<number>,
): SeriesLines {
  const recurrence = series.recurrence as RecurrenceInput
  const shape = {
    start: series.start,
    end: series.end,
    timezone: series.timezone,
    all_day: series.all_day,
  }
  const all = checkRecurrence(recurrence, shape)
  const rules = checkRecurrence({ rules: recurrence.rules }, shape)
  const zone = series.timezone
  const allDay = series.all_day
  const durationMs = series.end.getTime() - series.start.getTime()
  const fromMs = (window.fromMs ?? series.start.getTime()) - (allDay ? DAY_MS : durationMs)
  const toMs = window.toMs ?? LAST_LOOKED_AT_MS
  const removed = new Set(
    (series.edited_starts ?? []).map((d) => d.getTime()).filter((ms) => !carried.has(ms)),
  )
  const inSet = (o: Occurrence) => all.byKey(o.key) !== undefined && !removed.has(o.startMs)
  const first = rules.byKey(rules.startKey) as Occurrence

  const exdates = new Map<string, string>()
  const rdates = new Map<number, string>()
  // A fixed offset (`UTC+5:30`) has no TZID readers know: its times are written in UTC.
  const zoned = allDay || !isFixedZone(zone)
  const exdate = (o: Occurrence) =>
    exdates.set(
      o.wall,
      zoned ? dateValue('EXDATE', o.wall, zone, allDay) : `EXDATE:${utcStamp(o.startMs)}`,
    )
  const utcStarts = new Set<number>()
  const exactFor = (o: Occurrence) =>
    allDay || (zoned && durationExactInZone(zone, o.startMs, o.endMs))
  const rdate = (o: Occurrence) => {
    if (exactFor(o)) rdates.set(o.startMs, dateValue('RDATE', o.start, zone, allDay))
    else {
      rdates.set(o.startMs, `RDATE:${utcStamp(o.startMs)}`)
      utcStarts.add(o.startMs)
    }
  }
  // Occurrences an override names must be in the set even when outside the window.
  const named = [...carried].flatMap((ms) => startingAt(all, ms) ?? [])

  // In UTC a fixed offset's rules would fall on other days and hours.
  const utcRules = !zoned && zone !== 'UTC'
  const troubled = all.input.rules.some(
    (rule) =>
      (utcRules && /^FREQ=(MONTHLY|YEARLY)|;BY/.test(rule)) ||
      icalMisexpands(rule, {
        startDay: Number(first.wall.slice(8, 10)),
        exdates: (recurrence.exdates?.length ?? 0) > 0 || removed.size > 0,
      }),
  )
  const listed = troubled ? all.between(fromMs, toMs, MAX_EXPLICIT_OCCURRENCES + 1) : []
  if (troubled && listed.length <= MAX_EXPLICIT_OCCURRENCES) {
    // The window's occurrences one by one; DTSTART stays the series' first start.
    // DTSTART stays the series' first start; where readers would misplace it, it is replaced.
    const firstExact = first.wall === first.start && exactFor(first)
    if (!inSet(first) || !firstExact) exdate(first)
    for (const o of [...listed, ...named]) {
      if (inSet(o) && (o.key !== first.key || !firstExact)) rdate(o)
    }
    const lines = [...rdates.values(), ...exdates.values()]
    // A marker line too: a lone RDATE would be taken for a rule's text by the feed's writer.
    return finish(lines.length ? [...lines, 'X-CAL-RECURRENCE:OCCURRENCES'] : [], utcStarts, series)
  }

  // The rules, with their rdates and exdates as the store holds them.
  for (const wall of all.input.exdates ?? []) {
    const o = byWall(rules, wall)
    if (o) exdate(o)
  }
  for (const wall of all.input.rdates ?? []) {
    const o = byWall(all, wall)
    if (o && !removed.has(o.startMs)) rdate(o)
  }
  for (const ms of removed) {
    const o = startingAt(all, ms)
    if (o && rules.byKey(o.key)) exdate(o)
  }
  if (zoned && !allDay) {
    // Occurrences readers would place elsewhere: near the zone's clock changes, in eras whose
    // offset has seconds, the series' first one and those overrides name.
    const near = transitionsBetween(zone, fromMs - 2 * DAY_MS, toMs + 2 * DAY_MS).flatMap((t) =>
      rules.between(t.atMs - durationMs - 2 * DAY_MS, t.atMs + 2 * DAY_MS),
    )
    const odd = offsetSecondsAt(zone, fromMs) % 60 !== 0 ? rules.between(fromMs, toMs, 1000) : []
    for (const o of [first, ...near, ...odd, ...named]) {
      if (o.wall === o.start && exactFor(o)) continue
      if (!rules.byKey(o.key)) continue
      exdate(o)
      if (inSet(o)) rdate(o)
    }
  }
  const ruleLines = all.icalLines().filter((line) => line.startsWith('RRULE:'))
  return finish([...ruleLines, ...rdates.values(), ...exdates.values()], utcStarts, series)
}

function dateValue(name: string, wall: string, zone: string, allDay: boolean): string {
  if (allDay) return `${name};VALUE=DATE:${wallStamp(wall, true)}`
  if (zone === 'UTC') return `${name}:${wallStamp(wall)}Z`
  return `${name};TZID=${zone}:${wallStamp(wall)}`
}

function finish(lines: string[], utcStarts: Set<number>, series: CalEvent): SeriesLines {
  const repeating = lines.join('\n')
  if (series.all_day) return { repeating, utcStarts }
  const seconds = Math.round((series.end.getTime() - series.start.getTime()) / 1000)
  return { repeating, utcStarts, duration: `PT${seconds}S` }
}
