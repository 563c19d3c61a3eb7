/** The record kinds of the calendar API. */
export type CalKind = 'event' | 'venue' | 'organizer' | 'category' | 'tag'
