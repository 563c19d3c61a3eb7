import { compileRecurrence, type Occurrence, type RecurrenceInput } from './recurrence/index.js'
import { type SeriesShape, seriesTiming } from './series-recurrence.js'

/** A rule that yields its DTSTART alone: a series cut to nothing past its first start keeps it. */
const FIRST_ONLY = 'FREQ=DAILY;COUNT=1'

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

/** A wall date-time as `YYYY-MM-DD HH:MM:SS` (a date alone is its midnight), for comparing. */
const fullWall = (wall: string) => (wall.length === 10 ? `${wall} 00:00:00` : wall)

/**
 * Splits a series at occurrence `cut` (RFC 5545 "this and following", as calendar clients
 * do it): `before` keeps the occurrences starting before `cut` (each rule ends just before
 * it: UNTIL one second before, or the COUNT it had reached), `after` holds the rest under a
 * series starting at `cut` (COUNTs reduced by what came before; rules spent before the cut
 * dropped); rdates and exdates go to the side of the cut they fall on. `after` is `null` when
 * nothing of the rules or rdates reaches past the cut. Each rule is counted by the core, never
 * by stepping dates here.
 */
export function splitRecurrence(
  input: RecurrenceInput,
  shape: SeriesShape,
  cut: Occurrence,
): { before: RecurrenceInput; after: RecurrenceInput | null } {
  const timing = seriesTiming(shape)
  const from = shape.start.getTime()
  const beforeRules: string[] = []
  const afterRules: string[] = []
  for (const rule of input.rules) {
    const alone = compileRecurrence({ rules: [rule] }, timing)
    const reachesCut = alone.nth(cut.startMs, 0) !== undefined
    if (!reachesCut) {
      beforeRules.push(rule)
      continue
    }
    const count = /(?:^|;)COUNT=(\d+)/i.exec(rule)
    const spent = alone.count(from, cut.startMs - 1)
    if (count) {
      if (spent > 0) beforeRules.push(withEnd(rule, `COUNT=${spent}`))
      afterRules.push(withEnd(rule, `COUNT=${Number(count[1]) - spent}`))
    } else {
      beforeRules.push(withEnd(rule, `UNTIL=${untilUtc(cut.startMs - 1000)}`))
      afterRules.push(rule)
    }
  }
  const cutWall = fullWall(cut.start)
  const side = (dates: readonly string[] | undefined, later: boolean) =>
    (dates ?? []).filter((d) => fullWall(d) >= cutWall === later)
  const before: RecurrenceInput = {
    rules: beforeRules.length ? beforeRules : [FIRST_ONLY],
    rdates: side(input.rdates, false),
    exdates: side(input.exdates, false),
  }
  const rdates = side(input.rdates, true)
  if (afterRules.length === 0 && rdates.length === 0) return { before, after: null }
  return {
    before,
    after: {
      rules: afterRules.length ? afterRules : [FIRST_ONLY],
      rdates,
      exdates: side(input.exdates, true),
    },
  }
}
