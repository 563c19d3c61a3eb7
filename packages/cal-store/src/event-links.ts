import { CalValidationError } from './errors.js'

/**
 * Most entries one event write may give in each relation field (`organizers`, `categories`,
 * `tags`). The bound is what reads must always serve: a page of 50 events at it renders
 * 150,000 related records, and the feed of 5,000 events names 5 million categories; ten times
 * more and a list that includes such events stops being a request. No real calendar comes near
 * it (GitHub allows 100 labels per issue).
 */
export const MAX_EVENT_LINKS = 1000

/** The relation fields of an event write, as the store names them. */
export interface EventLinks {
  organizers?: readonly unknown[] | null
  categories?: readonly unknown[] | null
  tags?: readonly unknown[] | null
}

/**
 * Throws `CalValidationError` on the field that gives more than {@link MAX_EVENT_LINKS}
 * entries. Every event write (single, update, bulk) and the API's pre-auth body check call it:
 * the one place the limit lives.
 */
export function checkEventLinks(links: EventLinks): void {
  for (const field of ['organizers', 'categories', 'tags'] as const) {
    const list = links[field]
    if (Array.isArray(list) && list.length > MAX_EVENT_LINKS) {
      throw new CalValidationError(field, `at most ${MAX_EVENT_LINKS} entries per event`)
    }
  }
}
