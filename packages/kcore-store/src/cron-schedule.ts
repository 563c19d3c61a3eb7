import { Cron } from 'croner'
import { KcoreConfigError } from './errors.js'

/**
 * Checks a five-field cron expression (minute hour day-of-month month day-of-week, UTC) and
 * returns it trimmed. Six-field (seconds) patterns, nicknames (`@daily`) and anything croner
 * cannot parse are refused.
 *
 * @throws {KcoreConfigError} naming the expression and what is wrong with it.
 */
export function parseCronSchedule(schedule: string): string {
  const text = typeof schedule === 'string' ? schedule.trim() : ''
  const fields = text.split(/\s+/).filter(Boolean)
  if (fields.length !== 5) {
    throw new KcoreConfigError(
      `Invalid scheduler cron expression '${String(schedule)}': expected five fields ` +
        `(minute hour day-of-month month day-of-week, UTC), got ${fields.length}`,
    )
  }
  try {
    new Cron(text, { paused: true, timezone: 'UTC' }).stop()
  } catch (error) {
    throw new KcoreConfigError(
      `Invalid scheduler cron expression '${schedule}': ${(error as Error).message}`,
    )
  }
  return text
}
