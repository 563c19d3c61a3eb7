/**
 * Publication status of an event, venue or organizer (WordPress post statuses).
 * `trash` is what {@link EventRepository.trash} and friends set; trashed records stay readable by
 * id (so the API can answer "no longer available" / "in trash") but are left out of every list
 * unless the caller asks for `trash` explicitly.
 */
export type PostStatus = 'publish' | 'draft' | 'pending' | 'private' | 'future' | 'trash'

/** Every {@link PostStatus}, in a stable order (handy for validation schemas). */
export const POST_STATUSES: readonly PostStatus[] = [
  'publish',
  'draft',
  'pending',
  'private',
  'future',
  'trash',
]

/** The kinds of record the store keeps; errors name one of these. */
export type RecordKind = 'event' | 'venue' | 'organizer' | 'category' | 'tag'
