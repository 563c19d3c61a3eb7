import { fromLocalDateTime, toLocalDateTime } from './time-zone.js'

/**
 * The instants of an all-day event: 00:00:00 of the day `start` falls on and 23:59:59 of the
 * day `end` falls on, both as wall-clock times in `zone`.
 */
export function allDayBounds(start: Date, end: Date, zone: string): { start: Date; end: Date } {
  const s = toLocalDateTime(start, zone)
  const e = toLocalDateTime(end, zone)
  return {
    start: fromLocalDateTime({ ...s, hour: 0, minute: 0, second: 0 }, zone),
    end: fromLocalDateTime({ ...e, hour: 23, minute: 59, second: 59 }, zone),
  }
}
