import { RRuleTemporal } from 'rrule-temporal'
import { Temporal } from 'temporal-polyfill'
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

  constructor(ruleText: string, dtstartWall: number, allDay: boolean) {
    const dtstart = allDay
      ? `DTSTART;VALUE=DATE:${formatIcal(dtstartWall, true)}`
      : `DTSTART:${formatIcal(dtstartWall, false)}Z`
    this.rule = new RRuleTemporal({
      rruleString: `${dtstart}\nRRULE:${ruleText}`,
      // Enough for any window: periods and candidates are bounded by the caller's windows.
      maxIterations: 1e9,
      maxCandidateEvaluations: 1e12,
    })
  }

  /** Wall seconds of the rule's occurrences in [fromWall, toWall], ascending. */
  between(fromWall: number, toWall: number): number[] {
    return this.rule
      .between(floating(fromWall), floating(toWall), true)
      .map((z) => z.epochMilliseconds / 1000)
  }
}
