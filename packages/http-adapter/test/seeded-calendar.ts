import type { CalStore, EventInput } from '@cal/store'
import { prng, SAMPLE_WORDS, seedRecords } from '@cal/store/testing'

/** One seeded event as the model knows it (instants as stored). */
export interface ModelEvent {
  id: number
  title: string
  text: string
  start: number
  end: number
  status: string
  hidden: boolean
  protected: boolean
  featured: boolean
  venue: number
  categories: number[]
  tags: number[]
}

/** A deterministic calendar and the model to check answers against. */
export interface SeededCalendar {
  events: ModelEvent[]
  categories: { id: number; slug: string }[]
  tags: { id: number; slug: string }[]
  venues: number[]
}

const ZONES = ['UTC', 'Europe/Amsterdam', 'America/New_York', 'Asia/Tokyo', 'UTC+5:30']

/**
 * Seeds `count` events through the store's bulk path, with 12 venues (half with coordinates),
 * 6 organizers, 12 categories and 30 tags, between December 2025 and mid 2028.
 */
export async function seedCalendar(store: CalStore, count: number): Promise<SeededCalendar> {
  const rnd = prng(20260301)
  const word = () => rnd.pick(SAMPLE_WORDS)
  const { venues, organizers, categories, tags } = await seedRecords(
    store,
    { venues: 12, organizers: 6, categories: 12, tags: 30 },
    (i) => (i % 2 === 0 ? { geo_lat: 40 + i, geo_lng: -70 + i } : {}),
  )

  const from = Date.UTC(2025, 11, 1)
  const span = Date.UTC(2028, 5, 1) - from
  const inputs: EventInput[] = []
  const drafts: Omit<ModelEvent, 'id'>[] = []
  for (let i = 0; i < count; i++) {
    const start = from + Math.floor((rnd.next() * span) / 60_000) * 60_000
    const end =
      start +
      (30 + Math.floor(rnd.next() * 8) * 30) * 60_000 +
      (rnd.chance(0.05) ? 3 * 86_400_000 : 0)
    const title = `${word()} ${word()} evening ${i}`
    const description = `An event about ${word()} and ${word()}`
    const status = rnd.chance(0.9) ? 'publish' : 'draft'
    const hidden = rnd.chance(0.03)
    const isProtected = i % 400 === 7
    const featured = rnd.chance(0.1)
    const venue = rnd.pick(venues)
    const cats = [
      ...new Set([rnd.pick(categories).id, ...(rnd.chance(0.3) ? [rnd.pick(categories).id] : [])]),
    ]
    const tagIds = [...new Set([rnd.pick(tags).id, rnd.pick(tags).id])]
    inputs.push({
      title,
      description,
      start: new Date(start),
      end: new Date(end),
      timezone: rnd.pick(ZONES),
      status: status as 'publish' | 'draft',
      hide_from_listings: hidden,
      featured,
      password: isProtected ? 'pw' : null,
      venue,
      organizers: [rnd.pick(organizers)],
      categories: cats,
      tags: tagIds,
    })
    drafts.push({
      title,
      text: `${title}\n${description}`.toLowerCase(),
      start,
      end,
      status,
      hidden,
      protected: isProtected,
      featured,
      venue,
      categories: cats,
      tags: tagIds,
    })
  }
  const ids = await store.events.createMany(inputs)
  return {
    events: drafts.map((d, i) => ({ ...d, id: ids[i] as number })),
    categories: categories.map((c) => ({ id: c.id, slug: c.slug })),
    tags: tags.map((t) => ({ id: t.id, slug: t.slug })),
    venues,
  }
}

/** Model order: start, then id. */
export const byStart = (a: ModelEvent, b: ModelEvent) => a.start - b.start || a.id - b.id
