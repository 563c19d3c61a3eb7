import type { Answer, KcoreServer } from './kcore-process.js'

const EVENTS = '/cal/events/v1/events'

/** The i-th server, round robin: spreads concurrent calls over every process. */
const pick = (servers: KcoreServer[], i: number) => servers[i % servers.length]!

/** Creates `count` events titled `title` at once, spread over the servers. */
export function createSameTitle(
  servers: KcoreServer[],
  token: string,
  title: string,
  count: number,
): Promise<Answer[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      pick(servers, i).call(EVENTS, {
        method: 'POST',
        token,
        json: { title, start_date: '2026-06-01 18:00:00', end_date: '2026-06-01 21:00:00' },
      }),
    ),
  )
}

/**
 * One update per field, all at once on the same event, spread over the servers and over the
 * three update methods (all partial updates per the spec). With no lost update, every field
 * shows its new value at the end.
 */
export const FIELD_UPDATES: Record<string, unknown>[] = [
  { title: 'Renamed concurrently' },
  { description: 'Description written concurrently' },
  { excerpt: 'Excerpt written concurrently' },
  { website: 'https://example.org/concurrent' },
  { cost: '12$' },
  { featured: true },
  { sticky: true },
  { ticketed: true },
  { show_map: true },
  { show_map_link: true },
  { categories: ['Concurrency category'] },
  { tags: ['Concurrency tag'] },
  { venue: { venue: 'Concurrency Hall', city: 'Lisbon' } },
  { organizer: [{ organizer: 'Concurrency Org' }] },
]

const METHODS = ['PATCH', 'PUT', 'POST'] as const

/** Sends every body of `updates` to event `id` at once, spread over servers and methods. */
export function updateConcurrently(
  servers: KcoreServer[],
  token: string,
  id: number,
  updates: Record<string, unknown>[],
): Promise<Answer[]> {
  return Promise.all(
    updates.map((json, i) =>
      pick(servers, i).call(`${EVENTS}/${id}`, {
        method: METHODS[i % METHODS.length],
        token,
        json,
      }),
    ),
  )
}

/**
 * Creates `count` events at once, spread over the servers, each naming the same new venue,
 * organizer, category and tag inline: one record of each should come out, shared by all.
 */
export function createWithSameNewRecords(
  servers: KcoreServer[],
  token: string,
  prefix: string,
  count: number,
): Promise<Answer[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      pick(servers, i).call(EVENTS, {
        method: 'POST',
        token,
        json: {
          title: `${prefix} event ${i}`,
          start_date: '2026-08-01 10:00:00',
          end_date: '2026-08-01 11:00:00',
          venue: { venue: `${prefix} Hall` },
          organizer: [{ organizer: `${prefix} Org` }],
          categories: [`${prefix} category`],
          tags: [`${prefix} tag`],
        },
      }),
    ),
  )
}
