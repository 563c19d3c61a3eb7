import { formatLocalDateTime } from '@cal/store'

/** `date`, `date_utc`, `modified`, `modified_utc` of a record. */
export function recordDates(record: { created: Date; modified: Date }, timezone: string) {
  return {
    date: formatLocalDateTime(record.created, timezone),
    date_utc: formatLocalDateTime(record.created, 'UTC'),
    modified: formatLocalDateTime(record.modified, timezone),
    modified_utc: formatLocalDateTime(record.modified, 'UTC'),
  }
}

/** `false` or `{url}`. */
export const renderImage = (image: string | null): false | { url: string } =>
  image ? { url: image } : false
