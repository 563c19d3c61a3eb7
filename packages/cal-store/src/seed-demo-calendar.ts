import type { CalStore } from './cal-store.js'

/** Options of {@link seedDemoCalendar}. */
export interface SeedDemoOptions {
  /** Events are placed in the weeks after this instant. */
  now: Date
}

/**
 * Fills an empty store with a small, real-looking calendar: a handful of venues with
 * coordinates, organizers, categories (one with a parent), tags and ~10 upcoming events
 * (one all-day, one in America/New_York, one with a cost). Does not check emptiness; call
 * `store.isEmpty()` first.
 */
export async function seedDemoCalendar(_store: CalStore, _options: SeedDemoOptions): Promise<void> {
  throw new Error('@cal/store: seedDemoCalendar not implemented yet')
}
