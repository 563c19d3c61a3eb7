import type { CalEvent } from './event.js'
import type { EventRelations } from './event-relations.js'
import type { Organizer } from './organizer.js'
import type { RecordKind } from './status.js'
import type { Term } from './term.js'
import type { Venue } from './venue.js'

/** What happened to a record. A trash is a deletion: the API's `DELETE` trashes. */
export type CalChangeAction = 'created' | 'updated' | 'deleted'

/** One record a write transaction created, updated or deleted. */
export interface CalChange {
  kind: RecordKind
  action: CalChangeAction
  id: number
}

const KINDS: readonly RecordKind[] = ['event', 'venue', 'organizer', 'category', 'tag']
const ACTIONS: readonly CalChangeAction[] = ['created', 'updated', 'deleted']

/** Every `kind.action` a change can be: the calendar API's webhook event types. */
export const CAL_CHANGE_TYPES: readonly string[] = KINDS.flatMap((kind) =>
  ACTIONS.map((action) => `${kind}.${action}`),
)

/** Reads of the records changes name, in the reader's transaction (see `CalStore.committedChanges`). */
export interface CalChangeRecords {
  events: { getMany(ids: readonly number[]): Promise<CalEvent[]> }
  venues: { getMany(ids: readonly number[]): Promise<Venue[]> }
  organizers: { getMany(ids: readonly number[]): Promise<Organizer[]> }
  categories: { getMany(ids: readonly number[]): Promise<Term[]> }
  tags: { getMany(ids: readonly number[]): Promise<Term[]> }
  /** The venues, organizers, categories and tags `events` link to, in one statement. */
  relations(events: readonly CalEvent[]): Promise<EventRelations>
}
