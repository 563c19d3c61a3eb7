import { RRuleTemporal } from 'rrule-temporal'
import { Temporal } from 'temporal-polyfill'
import { RecurrenceError } from './recurrence-error.js'
import { formatIcal } from './wall-clock.js'

// The expansion library runs on a floating timeline: the series' wall clock read as UTC. That
// is RFC 5545's model (rules run on local time; the zone only maps the results to instants,
// which ZoneClock does), and it keeps DST shifts out of the rule arithmetic.

const floating = (wall: number) =>
  Temporal.Instant.fromEpochMilliseconds(wall * 1000).toZonedDateTimeISO('UTC')

/**
 * One rule (UNTIL already taken out: it bounds instants, which the caller handles) expanded by
 * rrule-temporal from `dtstartWall`; DTSTART itself is left to the caller.
 */
export class LibraryRule {
  private readonly rule: RRuleTemporal

  constructor(
    private readonly text: string,
    dtstartWall: number,
    allDay: boolean,
  ) {
    const ruleText = text
    const dtstart = allDay
      ? `DTSTART;VALUE=DATE:${formatIcal(dtstartWall, true)}`
      : `DTSTART:${formatIcal(dtstartWall, false)}Z`
    this.rule = new RRuleTemporal({
      rruleString: `${dtstart}\nRRULE:${ruleText}`,
      // The caller asks for one unit at a time; a rule the library cannot place within these
      // caps (it walks from DTSTART for some shapes) is refused instead of hanging.
      maxIterations: 200_000,
      maxCandidateEvaluations: 5_000_000,
      cache: false,
    })
  }

  /** Wall seconds of the rule's occurrences in [fromWall, toWall], ascending. */
  between(fromWall: number, toWall: number): number[] {
    try {
      return this.rule
        .between(floating(fromWall), floating(toWall), true)
        .map((z) => z.epochMilliseconds / 1000)
    } catch (e) {
      throw new RecurrenceError(
        `rule "${this.text}" is too costly to expand (${e instanceof Error ? e.message : e})`,
      )
    }
  }
}
