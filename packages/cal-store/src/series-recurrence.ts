import {
  compileRecurrence,
  parseWallTime,
  type Recurrence,
  RecurrenceError,
  type RecurrenceInput,
  type SeriesTiming,
} from '@cal/recurrence'
import { LRUCache } from 'lru-cache'
import { CalValidationError } from './errors.js'
import { formatLocalDateTime } from './time-zone.js'

export type { Occurrence, Recurrence, RecurrenceInput } from '@cal/recurrence'

/** What a series' occurrences follow from: its first start, end, zone and day mode. */
export interface SeriesShape {
  start: Date
  end: Date
  timezone: string
  all_day: boolean
}

/**
 * The recurrence core's timing of a series. An all-day series is timed on the wall clock, as
 * the core counts its dates: from its first date's 00:00:00 (a day's first instant may be
 * later: Santiago's 2026-09-06 begins at 01:00) for the wall time to its end (a day may have
 * 23 or 25 hours), so every occurrence ends at 23:59:59 of its own last date.
 */
export function seriesTiming(shape: SeriesShape): SeriesTiming {
  const start = formatLocalDateTime(shape.start, shape.timezone)
  if (!shape.all_day) {
    return {
      start,
      zone: shape.timezone,
      durationSeconds: Math.round((shape.end.getTime() - shape.start.getTime()) / 1000),
      allDay: false,
    }
  }
  const firstDay = `${start.slice(0, 10)} 00:00:00`
  // Both are stored dates (1000..9999), so both parse; the core refuses a start that does not.
  const from = parseWallTime(firstDay, false) ?? 0
  const to = parseWallTime(formatLocalDateTime(shape.end, shape.timezone), false) ?? from
  return {
    start: firstDay,
    zone: shape.timezone,
    durationSeconds: Math.max(0, to - from),
    allDay: true,
  }
}

/**
 * Compiled recurrences by everything they are compiled from: a pure function's results
 * (the rule text, start, zone, duration), so no write can make one stale. Lists compile the
 * series they page through once, not on every request.
 */
const compiled = new LRUCache<string, Recurrence>({ max: 20_000 })

/** Runs the core's compile, its refusals as `CalValidationError` on `recurrence`. */
function compile(input: unknown, timing: SeriesTiming): Recurrence {
  try {
    return compileRecurrence(input, timing)
  } catch (error) {
    if (error instanceof RecurrenceError) throw new CalValidationError('recurrence', error.message)
    throw error
  }
}

/** The stored recurrence (JSON text) of a series, compiled against its timing. */
export function compileStored(text: string, shape: SeriesShape): Recurrence {
  // The timing is a function of these four: keyed by them, a list looks up its series without
  // formatting each start in its zone.
  const { start, end, timezone, all_day } = shape
  const key = `${start.getTime()}|${end.getTime()}|${timezone}|${all_day}\u0000${text}`
  let recurrence = compiled.get(key)
  if (!recurrence) {
    recurrence = compile(JSON.parse(text), seriesTiming(shape))
    compiled.set(key, recurrence)
  }
  return recurrence
}

/**
 * A client's `recurrence` value compiled against the series' timing: the core checks every
 * refusal of the spec; each is a `CalValidationError` on `recurrence`, the field the API names.
 */
export function compileGiven(value: unknown, shape: SeriesShape): Recurrence {
  return compile(value, seriesTiming(shape))
}

/** The stored text of a compiled recurrence (its normalised input). */
export function recurrenceText(recurrence: Recurrence): string {
  return JSON.stringify(recurrence.input)
}

/** The stored recurrence of a row, parsed (stored text is always the core's own output). */
export function parseRecurrence(text: string): RecurrenceInput {
  return JSON.parse(text) as RecurrenceInput
}
