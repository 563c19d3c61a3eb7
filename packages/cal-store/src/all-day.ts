import { endOfDayInstant, startOfDayInstant, toLocalDateTime } from './time-zone.js'

/**
 * The instants of an all-day event: the start (00:00:00) of the day `start` falls on and the
 * last second (23:59:59) of the day `end` falls on, both days read in `zone`.
 */
export function allDayBounds(start: Date, end: Date, zone: string): { start: Date; end: Date } {
  return {
    start: startOfDayInstant(toLocalDateTime(start, zone), zone),
    end: endOfDayInstant(toLocalDateTime(end, zone), zone),
  }
}
