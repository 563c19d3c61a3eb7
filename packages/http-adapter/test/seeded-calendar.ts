import type { CalStore, EventInput } from '@cal/store'

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

const WORDS = [
  'jazz',
  'opera',
  'market',
  'lecture',
  'yoga',
  'film',
  'chess',
  'poetry',
  'salsa',
  'robotics',
]
const ZONES = ['UTC', 'Europe/Amsterdam', 'America/New_York', 'Asia/Tokyo', 'UTC+5:30']

/** Mulberry32: a small seeded PRNG so the calendar is the same on every run. */
function random(seed: number) {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * Seeds `count` events through the store's bulk path, with 12 venues (half with coordinates),
 * 6 organizers, 12 categories and 30 tags, between December 2025 and mid 2028.
 */
export async function seedCalendar(store: CalStore, count: number): Promise<SeededCalendar> {
  const rnd = random(20260301)
  const pick = <T>(list: readonly T[]) => list[Math.floor(rnd() * list.length)] as T
  const venues: number[] = []
  for (let i = 0; i < 12; i++) {
    const v = await store.venues.create({
      name: `Venue ${i}`,
      ...(i % 2 === 0 ? { geo_lat: 40 + i, geo_lng: -70 + i } : {}),
    })
    venues.push(v.id)
  }
  const organizers: number[] = []
  for (let i = 0; i < 6; i++)
    organizers.push((await store.organizers.create({ name: `Organizer ${i}` })).id)
  const categories = []
  for (let i = 0; i < 12; i++)
    categories.push(await store.categories.create({ name: `Category ${i}` }))
  const tags = []
  for (let i = 0; i < 30; i++) tags.push(await store.tags.create({ name: `Tag ${i}` }))

  const from = Date.UTC(2025, 11, 1)
  const span = Date.UTC(2028, 5, 1) - from
  const inputs: EventInput[] = []
  const drafts: Omit<ModelEvent, 'id'>[] = []
  for (let i = 0; i < count; i++) {
    const start = from + Math.floor((rnd() * span) / 60_000) * 60_000
    const end =
      start + (30 + Math.floor(rnd() * 8) * 30) * 60_000 + (rnd() < 0.05 ? 3 * 86_400_000 : 0)
    const title = `${pick(WORDS)} ${pick(WORDS)} evening ${i}`
    const description = `An event about ${pick(WORDS)} and ${pick(WORDS)}`
    const status = rnd() < 0.9 ? 'publish' : 'draft'
    const hidden = rnd() < 0.03
    const isProtected = i % 400 === 7
    const featured = rnd() < 0.1
    const venue = pick(venues)
    const cats = [...new Set([pick(categories).id, ...(rnd() < 0.3 ? [pick(categories).id] : [])])]
    const tagIds = [...new Set([pick(tags).id, pick(tags).id])]
    inputs.push({
      title,
      description,
      start: new Date(start),
      end: new Date(end),
      timezone: pick(ZONES),
      status: status as 'publish' | 'draft',
      hide_from_listings: hidden,
      featured,
      password: isProtected ? 'pw' : null,
      venue,
      organizers: [pick(organizers)],
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
