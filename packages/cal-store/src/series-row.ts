/** A series row a list filter matched, with what placing its occurrences needs. */
export interface SeriesRow {
  id: number
  recurrence: string | null
  start_utc: Date
  end_utc: Date
  timezone: string
  all_day: boolean
  sticky: boolean
  series_slot: number | null
  /** Keys of its edited occurrences: their override rows are listed as single events. */
  override_keys: number[]
}
