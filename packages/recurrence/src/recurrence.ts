/** A series' recurrence as written: RRULE values (no `RRULE:` prefix), extra and removed dates. */
export interface RecurrenceInput {
  rules: string[]
  rdates?: string[]
  exdates?: string[]
}

/** Where and how long a series' occurrences are. */
export interface SeriesTiming {
  /** Wall clock `YYYY-MM-DD HH:MM:SS` in `zone`: the first occurrence. */
  start: string
  /** IANA name or the store's fixed-offset form `UTC±H[:MM]`. */
  zone: string
  durationSeconds: number
  /** All-day: occurrences are dates, 00:00:00 → 23:59:59 wall clock. */
  allDay: boolean
}

/** One occurrence of a series. */
export interface Occurrence {
  /**
   * Wall-clock minute of the original start since 1000-01-01T00:00, an integer in [0, 2^33):
   * stable while the rule is unchanged.
   */
  key: number
  /**
   * The wall time the rules give it, `YYYY-MM-DD HH:MM:SS`: what an exdate or RECURRENCE-ID
   * names. It differs from `start` only in a DST gap, which moves the start forward by the gap
   * (02:30 and 03:30 New York on a spring-forward day both start at 03:30).
   */
  wall: string
  /** Wall clock in the series' zone, `YYYY-MM-DD HH:MM:SS`. */
  start: string
  end: string
  /** UTC instants (epoch ms). */
  startMs: number
  endMs: number
}

/** A compiled recurrence: occurrences in ascending start order, ties by key. */
export interface Recurrence {
  /** Normalised (rules upper-cased, canonical part order, UNTIL in UTC), for storage and echo. */
  readonly input: RecurrenceInput
  readonly infinite: boolean
  /** The key of the first occurrence (the series' start, DTSTART). */
  readonly startKey: number
  /** Occurrences with startMs in [fromMs, toMs], ascending, at most `limit` (default 10,000). */
  between(fromMs: number, toMs: number, limit?: number): Occurrence[]
  /** How many occurrences have startMs in [fromMs, toMs]. Fast: never enumerates millions. */
  count(fromMs: number, toMs: number): number
  /** The n-th (0-based) occurrence with startMs ≥ fromMs, or undefined. Fast, like count. */
  nth(fromMs: number, n: number): Occurrence | undefined
  /** The occurrence whose key is `key`, or undefined if the rule has none there. */
  byKey(key: number): Occurrence | undefined
  /** iCalendar lines for the feed: RRULE/RDATE/EXDATE property lines for this series. */
  icalLines(): string[]
}
