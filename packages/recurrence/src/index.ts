/**
 * `@cal/recurrence`: validated RFC 5545 rules, rdates and exdates of one series, expanded to
 * occurrences on the series' wall clock. Pure: data in, data out; no database, no I/O.
 *
 * @example
 * const rec = compileRecurrence(
 *   { rules: ['FREQ=WEEKLY;BYDAY=TU,TH'] },
 *   { start: '2026-03-03 19:00:00', zone: 'Europe/Berlin', durationSeconds: 7200, allDay: false },
 * )
 * rec.count(Date.UTC(2026, 2, 1), Date.UTC(2026, 3, 1)) // 9
 */
export { compileRecurrence } from './compile-recurrence.js'
export type { Occurrence, Recurrence, RecurrenceInput, SeriesTiming } from './recurrence.js'
export { RecurrenceError } from './recurrence-error.js'
export { parseWallTime, wallKey } from './wall-clock.js'
export { canonicalTimeZone, isValidTimeZone, temporalZoneId } from './zone-id.js'
