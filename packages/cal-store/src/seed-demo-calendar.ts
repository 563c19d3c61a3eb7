import type { CalStore } from './cal-store.js'
import { addDays, fromLocalDateTime, toLocalDateTime } from './time-zone.js'

/** Options of {@link seedDemoCalendar}. */
export interface SeedDemoOptions {
  /** Events are placed in the weeks after this instant; default: the current time. */
  now?: Date
}

/** Wall-clock `hour:minute` in `zone`, `days` days after the day of `now` in that zone. */
function at(now: Date, zone: string, days: number, hour: number, minute = 0): Date {
  const day = addDays(toLocalDateTime(now, zone), days)
  return fromLocalDateTime({ ...day, hour, minute, second: 0 }, zone)
}

/**
 * Fills an EMPTY store with a small, real-looking calendar: four venues with coordinates,
 * three organizers, categories (two with a parent), tags and ten upcoming events (one all-day,
 * one in America/New_York, several with a cost, one with a password). Runs under the
 * database lock `cal:seed` and re-checks `isEmpty()` inside it, so two processes starting at
 * once seed once; on a store that holds anything it does nothing. Every record is created
 * through the public repositories.
 */
export async function seedDemoCalendar(
  store: CalStore,
  options: SeedDemoOptions = {},
): Promise<void> {
  const now = options.now ?? new Date()
  await store.tryWithLock('cal:seed', async () => {
    if (await store.isEmpty()) await seed(store, now)
  })
}

async function seed(store: CalStore, now: Date): Promise<void> {
  const created = now
  const concertgebouw = await store.venues.create({
    name: 'Concertgebouw',
    address: 'Concertgebouwplein 10',
    city: 'Amsterdam',
    zip: '1071 LN',
    country: 'Netherlands',
    phone: '+31 20 671 8345',
    website: 'https://www.concertgebouw.nl',
    geo_lat: 52.3563,
    geo_lng: 4.8789,
    show_map: true,
    show_map_link: true,
    created,
  })
  const tivoli = await store.venues.create({
    name: 'TivoliVredenburg',
    address: 'Vredenburgkade 11',
    city: 'Utrecht',
    zip: '3511 WC',
    country: 'Netherlands',
    geo_lat: 52.0929,
    geo_lng: 5.1131,
    show_map: true,
    created,
  })
  const lincoln = await store.venues.create({
    name: 'Lincoln Center',
    address: '10 Lincoln Center Plaza',
    city: 'New York',
    state: 'NY',
    zip: '10023',
    country: 'United States',
    geo_lat: 40.7725,
    geo_lng: -73.9835,
    show_map: true,
    show_map_link: true,
    created,
  })
  const vondelpark = await store.venues.create({
    name: 'Vondelpark Openluchttheater',
    address: 'Vondelpark 5A',
    city: 'Amsterdam',
    country: 'Netherlands',
    geo_lat: 52.3584,
    geo_lng: 4.8685,
    created,
  })

  const guild = await store.organizers.create({
    name: 'Amsterdam Music Guild',
    email: 'hello@music-guild.example',
    website: 'https://music-guild.example',
    created,
  })
  const club = await store.organizers.create({
    name: 'Canal Runners Club',
    phone: '+31 6 1234 5678',
    created,
  })
  const society = await store.organizers.create({
    name: 'Hudson Chamber Society',
    email: 'info@hudson-chamber.example',
    created,
  })

  const music = await store.categories.create({ name: 'Music', description: 'Concerts and gigs' })
  const classical = await store.categories.create({ name: 'Classical', parent: music.id })
  const jazz = await store.categories.create({ name: 'Jazz', parent: music.id })
  const sports = await store.categories.create({ name: 'Sports' })
  const family = await store.categories.create({ name: 'Family' })
  const outdoor = await store.tags.create({ name: 'Outdoor' })
  const free = await store.tags.create({ name: 'Free entry' })
  const kids = await store.tags.create({ name: 'Kids' })

  const ams = 'Europe/Amsterdam'
  const events = [
    {
      title: 'Mahler Symphony No. 2',
      description: 'The Resurrection symphony with full choir.',
      start: at(now, ams, 2, 20, 15),
      end: at(now, ams, 2, 22, 30),
      timezone: ams,
      venue: concertgebouw.id,
      organizers: [guild.id],
      categories: [classical.id],
      cost: '€45',
      featured: true,
    },
    {
      title: 'Late Night Jazz Session',
      description: 'Open jam after the main set.',
      start: at(now, ams, 3, 22),
      end: at(now, ams, 4, 1),
      timezone: ams,
      venue: tivoli.id,
      organizers: [guild.id],
      categories: [jazz.id],
      cost: ['15€', '25€'],
      ticketed: true,
    },
    {
      title: 'Canal Run 10K',
      description: 'A flat 10 km loop along the canals.',
      start: at(now, ams, 5, 9),
      end: at(now, ams, 5, 12),
      timezone: ams,
      organizers: [club.id],
      categories: [sports.id],
      tags: [outdoor.id],
      cost: '0',
    },
    {
      title: 'Open-Air Family Day',
      description: 'Puppets, music and games all day long.',
      excerpt: 'A whole day in the park.',
      start: at(now, ams, 6, 0),
      end: at(now, ams, 6, 0),
      timezone: ams,
      all_day: true,
      venue: vondelpark.id,
      categories: [family.id],
      tags: [outdoor.id, free.id, kids.id],
    },
    {
      title: 'Brahms at Lincoln Center',
      description: 'Piano quartets by Brahms and Schumann.',
      start: at(now, 'America/New_York', 8, 19, 30),
      end: at(now, 'America/New_York', 8, 21, 30),
      timezone: 'America/New_York',
      venue: lincoln.id,
      organizers: [society.id],
      categories: [classical.id],
      cost: '$60',
      sticky: true,
    },
    {
      title: 'Jazz Brunch',
      description: 'Trio standards with breakfast.',
      start: at(now, ams, 9, 11),
      end: at(now, ams, 9, 13),
      timezone: ams,
      venue: tivoli.id,
      categories: [jazz.id],
      cost: '20$',
    },
    {
      title: 'Bach Cantatas for Kids',
      description: 'A short, playful introduction to Bach.',
      start: at(now, ams, 12, 14),
      end: at(now, ams, 12, 15),
      timezone: ams,
      venue: concertgebouw.id,
      organizers: [guild.id],
      categories: [classical.id, family.id],
      tags: [kids.id],
      cost: ['0', '10€'],
    },
    {
      title: 'Park Bootcamp',
      description: 'Bring a mat and water.',
      start: at(now, ams, 14, 8),
      end: at(now, ams, 14, 9),
      timezone: ams,
      venue: vondelpark.id,
      organizers: [club.id],
      categories: [sports.id],
      tags: [outdoor.id, free.id],
    },
    {
      title: 'String Quartet Evening',
      description: 'Haydn, Ravel and a new commission.',
      start: at(now, 'UTC+1', 18, 20),
      end: at(now, 'UTC+1', 18, 22),
      timezone: 'UTC+1',
      venue: concertgebouw.id,
      organizers: [guild.id, society.id],
      categories: [classical.id],
      cost: '€30',
    },
    {
      title: 'Members-only Rehearsal',
      description: 'Closed rehearsal for guild members.',
      start: at(now, ams, 20, 19),
      end: at(now, ams, 20, 21),
      timezone: ams,
      venue: tivoli.id,
      organizers: [guild.id],
      categories: [music.id],
      password: 'guild',
    },
  ]
  for (const event of events) await store.events.create({ ...event, created })
}
