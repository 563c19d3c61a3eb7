import type { ModifiedFilter } from '@cal/store'
import { z } from 'zod'
import type { CalContext } from './cal-context.js'
import { isDateInput, readDateInput } from './parse-date-input.js'

const bound = (description: string) =>
  z
    .string()
    .refine(isDateInput, 'must be a date (YYYY-MM-DD) or date-time (YYYY-MM-DD HH:MM:SS)')
    .optional()
    .describe(description)

/** `modified_after`/`modified_before` of the event, venue and organizer lists. */
export const modifiedQuery = {
  modified_after: bound(
    'Only records modified after this instant (exclusive; read in UTC like modified_utc unless an offset is given)',
  ),
  modified_before: bound(
    'Only records modified before this instant (exclusive; read in UTC like modified_utc unless an offset is given)',
  ),
}

/**
 * The store's bounds for the query. Read in UTC because clients echo `modified_utc`; exact
 * (a bare day is its 00:00:00 UTC), never widened to whole days like the event date bounds;
 * the 1000–9999 range of every calendar date applies.
 */
export function toModifiedFilter(
  q: { modified_after?: string; modified_before?: string },
  ctx: CalContext,
): ModifiedFilter {
  const instant = (text: string | undefined, field: string) =>
    text === undefined ? undefined : readDateInput(text, 'UTC', ctx.now(), field).instant
  return {
    modified_after: instant(q.modified_after, 'modified_after'),
    modified_before: instant(q.modified_before, 'modified_before'),
  }
}
