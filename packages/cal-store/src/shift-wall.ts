import { fromLocalDateTime, toLocalDateTime } from './time-zone.js'

/** `instant` moved by the wall-clock distance from `from` to `to` (all read in `zone`). */
export function shiftWall(instant: Date, zone: string, from: Date, to: Date, field: string): Date {
  const wallMs = (at: Date) => {
    const w = toLocalDateTime(at, zone)
    return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second)
  }
  const moved = new Date(wallMs(instant) + wallMs(to) - wallMs(from))
  return fromLocalDateTime(
    {
      year: moved.getUTCFullYear(),
      month: moved.getUTCMonth() + 1,
      day: moved.getUTCDate(),
      hour: moved.getUTCHours(),
      minute: moved.getUTCMinutes(),
      second: moved.getUTCSeconds(),
    },
    zone,
    field,
  )
}
