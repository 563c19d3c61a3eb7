import { type RawBuilder, sql } from 'kysely'

/**
 * A `Date` as a SQL `timestamptz` parameter. The drivers send a `Date` as `toISOString()`,
 * which writes years past 9999 as `+010000-…`, a form PostgreSQL refuses; and the API takes
 * 9999-12-31 23:59:59 in any zone, which west of UTC is year 10000. So the instant goes as
 * text with a plain year, cast through `::text` so postgres-js does not turn it back into a
 * `Date` (it serialises parameters by their inferred type).
 */
export function timestampParam(instant: Date): RawBuilder<Date> {
  const text = instant.toISOString().replace(/^\+0*(\d{5,})/, '$1')
  return sql<Date>`${text}::text::timestamptz`
}
