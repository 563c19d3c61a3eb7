import { CAL_CHANGE_TYPES } from '@cal/store'
import { KCORE_WEBHOOK_EVENTS } from '@kcore/store'

/**
 * The event types each API sends, for `webhookSubscriptions(database, { events: WEBHOOK_EVENTS })`:
 * `event|venue|organizer|category|tag` `.created|.updated|.deleted` for the calendar,
 * `snapshot.added|.replaced` for k-core.
 */
export const WEBHOOK_EVENTS = {
  cal: CAL_CHANGE_TYPES,
  kcore: KCORE_WEBHOOK_EVENTS,
} as const
