import type { CalStore } from './cal-store.js'
import type { Term } from './term.js'
import type { VenueInput } from './venue.js'

/** How many of each record {@link seedRecords} creates. */
export interface RecordCounts {
  venues: number
  organizers: number
  categories: number
  tags: number
}

/** What {@link seedRecords} created, in creation order. */
export interface SeededRecords {
  venues: number[]
  organizers: number[]
  categories: Term[]
  tags: Term[]
}

/**
 * Creates `Venue i`, `Organizer i`, `Category i` and `Tag i` records one by one (in that
 * order, `i` from 0), the venue fields from `venue(i)`: the fixed part of a generated calendar
 * its events then point at.
 */
export async function seedRecords(
  store: CalStore,
  counts: RecordCounts,
  venue: (i: number) => Omit<VenueInput, 'name'> = () => ({}),
): Promise<SeededRecords> {
  const venues: number[] = []
  for (let i = 0; i < counts.venues; i++) {
    venues.push((await store.venues.create({ name: `Venue ${i}`, ...venue(i) })).id)
  }
  const organizers: number[] = []
  for (let i = 0; i < counts.organizers; i++) {
    organizers.push((await store.organizers.create({ name: `Organizer ${i}` })).id)
  }
  const categories: Term[] = []
  for (let i = 0; i < counts.categories; i++) {
    categories.push(await store.categories.create({ name: `Category ${i}` }))
  }
  const tags: Term[] = []
  for (let i = 0; i < counts.tags; i++) tags.push(await store.tags.create({ name: `Tag ${i}` }))
  return { venues, organizers, categories, tags }
}
