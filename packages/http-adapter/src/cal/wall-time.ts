import { formatWallTime, type LocalDateTime, toLocalDateTime } from '@cal/store'

export { timezoneAbbreviation } from '@cal/store'

/** `{year, month, day, hour, minutes, seconds}` as zero-padded strings (the `*_details` shape). */
export interface DateDetails {
  year: string
  month: string
  day: string
  hour: string
  minutes: string
  seconds: string
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** The `*_details` object of a wall time. */
export function dateDetails(w: LocalDateTime): DateDetails {
  return {
    year: pad(w.year, 4),
    month: pad(w.month),
    day: pad(w.day),
    hour: pad(w.hour),
    minutes: pad(w.minute),
    seconds: pad(w.second),
  }
}

/** A date and its details in one zone, as events render `start_date` + `start_date_details`. */
export function zonedDate(instant: Date, zone: string): { text: string; details: DateDetails } {
  const wall = toLocalDateTime(instant, zone)
  return { text: formatWallTime(wall), details: dateDetails(wall) }
}
