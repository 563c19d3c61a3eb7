import {
  compileRecurrence,
  type Occurrence,
  type Recurrence,
  type RecurrenceInput,
} from '@cal/recurrence'
import { CalValidationError } from './errors.js'
import { type SeriesShape, seriesTiming } from './series-recurrence.js'

/** A rule that yields its DTSTART alone: a series whose rules all ended keeps its start. */
const FIRST_ONLY = 'FREQ=DAILY;COUNT=1'

/** The spec's bound on a series' dates (`rdates` plus `exdates`). */
const MAX_DATES = 1000

/** `YYYYMMDDTHHMMSSZ` of an instant (RRULE UNTIL in UTC). */
function untilUtc(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '')
}

/** The rule `rule` with its COUNT/UNTIL replaced by `end` (`COUNT=n` or `UNTIL=…`). */
function withEnd(rule: string, end: string): string {
  const parts = rule.split(';').filter((p) => !/^(COUNT|UNTIL)=/i.test(p))
  return [...parts, end].join(';')
}

const countOf = (rule: string) => /(?:^|;)COUNT=(\d+)/i.exec(rule)?.[1]

/** A wall date-time as `YYYY-MM-DD HH:MM:SS` (a date alone is its midnight), for comparing. */
const fullWall = (wall: string) => (wall.length === 10 ? `${wall} 00:00:00` : wall)

/** Each rule of `input` compiled alone against the series' start, by the core. */
function rulesAlone(input: RecurrenceInput, shape: SeriesShape) {
  const timing = seriesTiming(shape)
  return input.rules.map((rule) => ({ rule, alone: compileRecurrence({ rules: [rule] }, timing) }))
}

/** Whether the rule `alone` has an occurrence at or after `cut`. */
const reaches = (alone: Recurrence, cut: Occurrence) => alone.nth(cut.startMs, 0) !== undefined

/** How many occurrences the rule `alone` has before `cut` (counted by the core). */
const spentBefore = (alone: Recurrence, shape: SeriesShape, cut: Occurrence) =>
  alone.count(shape.start.getTime(), cut.startMs - 1)

/**
 * The series' recurrence cut short before occurrence `cut` (RFC 5545 "this and following",
 * as calendar clients do it): each rule that reaches the cut ends just before it (the COUNT
 * it had reached, or UNTIL one second before); rdates and exdates from the cut on go.
 */
export function recurrenceBefore(
  input: RecurrenceInput,
  shape: SeriesShape,
  cut: Occurrence,
): RecurrenceInput {
  const rules = rulesAlone(input, shape).map(({ rule, alone }) => {
    if (!reaches(alone, cut)) return rule
    // The start is an occurrence of every rule (the core's check), so each has one before.
    return countOf(rule)
      ? withEnd(rule, `COUNT=${spentBefore(alone, shape, cut)}`)
      : withEnd(rule, `UNTIL=${untilUtc(cut.startMs - 1000)}`)
  })
  // exdates and rdates name the rules' wall times (`wall`), which a DST gap never moves
  const cutWall = fullWall(cut.wall)
  const earlier = (dates: readonly string[] | undefined) =>
    (dates ?? []).filter((d) => fullWall(d) < cutWall)
  return { rules, rdates: earlier(input.rdates), exdates: earlier(input.exdates) }
}

/**
 * The recurrence of a new series starting at occurrence `cut` with exactly the series'
 * occurrences from there on. A series starts on an occurrence of each of its rules (the
 * core's check), and a rule keeps its occurrences when started again at one of them: the
 * parts RFC 5545 takes from DTSTART (weekday, month day, time) and the INTERVAL's phase are
 * the same there. So a rule that has the cut carries on as it is (a COUNT less what it spent
 * before); one that ends but lacks the cut (another rule's occurrence, or an rdate) carries
 * on as rdates; one that never ends and lacks the cut cannot be written from there: refused,
 * as is an occurrence a DST gap moved (its wall time is not the rules' one). Rdates and
 * exdates from the cut on go with it; with no rule left, the cut is the start on its own.
 */
export function recurrenceFrom(
  input: RecurrenceInput,
  shape: SeriesShape,
  cut: Occurrence,
): RecurrenceInput {
  const refuse = (why: string) =>
    new CalValidationError(
      'scope',
      `scope=following cannot start a series at ${cut.start}: ${why}; edit this occurrence alone (scope=this) or every one (scope=all)`,
    )
  if (cut.start !== cut.wall) throw refuse('a DST gap moved this occurrence')
  const exdated = new Set((input.exdates ?? []).map(fullWall))
  const rules: string[] = []
  const carried: string[] = []
  const stays = rulesAlone(input, shape).filter(({ alone }) => reaches(alone, cut))
  const kept = stays.filter(({ alone }) => alone.byKey(cut.key)?.startMs === cut.startMs)
  for (const { rule, alone } of stays) {
    const count = countOf(rule)
    if (kept.some((k) => k.rule === rule)) {
      rules.push(
        count ? withEnd(rule, `COUNT=${Number(count) - spentBefore(alone, shape, cut)}`) : rule,
      )
      continue
    }
    if (alone.infinite) throw refuse(`its rule "${rule}" has no occurrence there and never ends`)
    // Its occurrences from the cut on, but those a kept rule has too (one occurrence each).
    const left = alone.between(cut.startMs, Number.MAX_SAFE_INTEGER, MAX_DATES + 1)
    for (const o of left) {
      const { wall } = o
      if (exdated.has(wall) || kept.some((k) => k.alone.byKey(o.key) !== undefined)) continue
      carried.push(shape.all_day ? wall.slice(0, 10) : wall)
    }
  }
  const cutWall = fullWall(cut.wall)
  const later = (dates: readonly string[] | undefined) =>
    (dates ?? []).filter((d) => fullWall(d) >= cutWall)
  // With no rule left the start stands on its own, and is no rdate of itself.
  const rdates = [...later(input.rdates), ...carried]
    .filter((d) => rules.length > 0 || fullWall(d) !== cutWall)
    .sort()
  const exdates = later(input.exdates)
  if (rdates.length + exdates.length > MAX_DATES) {
    throw refuse(`its occurrences from there would need more than ${MAX_DATES} dates`)
  }
  return { rules: rules.length ? rules : [FIRST_ONLY], rdates: [...new Set(rdates)], exdates }
}
