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

/** An occurrence the feed writes as a VEVENT of its own (RFC 5545: a detached instance). */
export interface DetachedOccurrence {
  /** The RECURRENCE-ID line naming it as readers compute it from the rules. */
  recurrenceId: string
  startMs: number
  endMs: number
}

/** How the feed writes a series' own VEVENT and the occurrences around it. */
export interface SeriesLines {
  /** The lines after DTSTART: RRULE/RDATE/EXDATE. */
  lines: string[]
  /** RFC 5545 DURATION (exact seconds), written instead of DTEND for a timed series. */
  duration?: string
  /** Occurrences readers would misplace from the rules: written as detached instances. */
  detached: DetachedOccurrence[]
  /** The RECURRENCE-ID line an edited occurrence names its occurrence with, by original start. */
  recurrenceIds: ReadonlyMap<number, string>
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

/** `NAME;TZID=zone:wall` (or the UTC and date forms) of a wall time in the series' zone. */
function dateLine(name: string, wall: string, zone: string, allDay: boolean): string {
  if (allDay) return `${name};VALUE=DATE:${wallStamp(wall, true)}`
  if (zone === 'UTC') return `${name}:${wallStamp(wall)}Z`
  return `${name};TZID=${zone}:${wallStamp(wall)}`
}

/**
 * A series as the feed writes it, so that a client expanding it over the feed's window gets
 * exactly the occurrences the JSON list gives:
 * - its rules, rdates and exdates, an EXDATE for each edited occurrence the feed does not carry
 *   and none naming no occurrence (ical.js then skips the next one);
 * - an occurrence readers cannot place from its wall time (moved by a DST gap, a wall time shown
 *   twice, an offset with seconds, a clock change before its end) as a detached instance: its
 *   RECURRENCE-ID names it by its wall time, as every reader computes it from the rules, and its
 *   own DTSTART/DTEND are the server's instants;
 * - a rule ical.js expands differently ({@link icalMisexpands}), or a fixed offset's rule (no
 *   TZID readers know: its times are UTC), as the window's occurrences themselves, up to
 *   {@link MAX_EXPLICIT_OCCURRENCES} (past that, the rule).
 */
export function seriesLines(
  series: CalEvent,
  window: FeedWindow,
  carried: ReadonlySet<number>,
): SeriesLines {
  const recurrence = series.recurrence as RecurrenceInput
  const all = checkRecurrence(recurrence, series)
  const rules = checkRecurrence({ rules: recurrence.rules }, series)
  const zone = series.timezone
  const allDay = series.all_day
  const zoned = allDay || !isFixedZone(zone)
  const durationMs = series.end.getTime() - series.start.getTime()
  const fromMs = (window.fromMs ?? series.start.getTime()) - (allDay ? DAY_MS : durationMs)
  const toMs = window.toMs ?? LAST_LOOKED_AT_MS
  const removed = new Set(
    (series.edited_starts ?? []).map((d) => d.getTime()).filter((ms) => !carried.has(ms)),
  )
  const inSet = (o: Occurrence) => all.byKey(o.key) !== undefined && !removed.has(o.startMs)
  const first = rules.byKey(rules.startKey) as Occurrence
  const exact = (o: Occurrence) =>
    allDay || (zoned && o.wall === o.start && durationExactInZone(zone, o.startMs, o.endMs))

  const lines = new Map<string, string>()
  const recurrenceIds = new Map<number, string>()
  const detached = new Map<number, DetachedOccurrence>()
  const exdate = (o: Occurrence) =>
    lines.set(
      `EX ${o.wall}`,
      zoned ? dateLine('EXDATE', o.wall, zone, allDay) : `EXDATE:${utcStamp(o.startMs)}`,
    )
  const rdate = (o: Occurrence) => {
    const line = exact(o)
      ? dateLine('RDATE', o.start, zone, allDay)
      : `RDATE:${utcStamp(o.startMs)}`
    lines.set(`R ${o.startMs}`, line)
    recurrenceIds.set(o.startMs, line.replace(/^RDATE/, 'RECURRENCE-ID'))
  }
  /** An occurrence of the rules readers would misplace: named by its wall time, detached. */
  const detach = (o: Occurrence) => {
    const id = dateLine('RECURRENCE-ID', o.wall, zone, allDay)
    recurrenceIds.set(o.startMs, id)
    if (!carried.has(o.startMs)) {
      detached.set(o.startMs, { recurrenceId: id, startMs: o.startMs, endMs: o.endMs })
    }
  }
  // Occurrences an override names must be in the set even when outside the window.
  const named = [...carried].flatMap((ms) => startingAt(all, ms) ?? [])

  const startDay = Number(first.wall.slice(8, 10))
  const exdates = (recurrence.exdates?.length ?? 0) > 0 || removed.size > 0
  const troubled = all.input.rules.some(
    (rule) =>
      (!zoned && zone !== 'UTC' && /^FREQ=(MONTHLY|YEARLY)|;BY/.test(rule)) ||
      icalMisexpands(rule, { startDay, exdates }),
  )
  const listed = troubled ? all.between(fromMs, toMs, MAX_EXPLICIT_OCCURRENCES + 1) : []
  if (troubled && listed.length <= MAX_EXPLICIT_OCCURRENCES) {
    // The window's occurrences one by one. DTSTART stays the series' first start, repeated as
    // an RDATE: ical.js leaves DTSTART out of a set without a rule (RFC 5545 counts it).
    if (!inSet(first)) exdate(first)
    for (const o of [first, ...listed, ...named]) if (inSet(o)) rdate(o)
    const written = [...lines.values()]
    // Nothing left but the removed first start: a rule of that one start, removed (without a
    // rule or RDATE, readers take DTSTART for a single event and ignore the EXDATE).
    if (!written.some((line) => line.startsWith('RDATE')))
      written.unshift('RRULE:FREQ=DAILY;COUNT=1')
    return finish(written)
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
    // Occurrences readers would misplace: near the zone's clock changes, in eras whose offset
    // has seconds, the series' first one and those overrides name.
    const near = transitionsBetween(zone, fromMs - 2 * DAY_MS, toMs + 2 * DAY_MS).flatMap((t) =>
      rules.between(t.atMs - durationMs - 2 * DAY_MS, t.atMs + 2 * DAY_MS),
    )
    const odd = offsetSecondsAt(zone, fromMs) % 60 !== 0 ? rules.between(fromMs, toMs, 1000) : []
    for (const o of [first, ...near, ...odd, ...named]) {
      if (!exact(o) && inSet(o) && rules.byKey(o.key)) detach(o)
    }
  }
  const ruleLines = all.icalLines().filter((line) => line.startsWith('RRULE:'))
  return finish([...ruleLines, ...lines.values()])

  function finish(written: string[]): SeriesLines {
    const seconds = Math.round(durationMs / 1000)
    return {
      lines: written,
      ...(!allDay && { duration: `PT${seconds}S` }),
      detached: [...detached.values()],
      recurrenceIds,
    }
  }
}
