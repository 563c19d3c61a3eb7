import { prng } from '@cal/store/testing'
import { testDatabases } from '@kcore/db/testing'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CalHarness, openCal } from './cal-harness.js'
import { calendarInvariantBreaks, type DeleteTally } from './cal-invariants.js'

// Model-based concurrency suite (issue 11): K clients issue seeded random mixes of creates,
// updates and deletes of every calendar kind at once, through the HTTP handler; afterwards the
// database must hold every invariant. PostgreSQL only: PGlite runs one connection, so nothing
// ever interleaves there. CAL_MODEL_RUNS seeds (default 6) of CAL_MODEL_OPS operations
// (default 300); CAL_MODEL_SEED replays one seed. The seed is printed with every failure.
const postgres = testDatabases().find((d) => d.name === 'postgres')
if (!postgres)
  console.log('cal-concurrency-model: skipped, set DATABASE_URL to run it on PostgreSQL')

const RUNS = Number(process.env.CAL_MODEL_RUNS ?? 6)
const OPS = Number(process.env.CAL_MODEL_OPS ?? 300)
const CLIENTS = 8
const FIRST_SEED = Number(process.env.CAL_MODEL_SEED ?? 1 + (Date.now() % 100_000))
const SEEDS = process.env.CAL_MODEL_SEED
  ? [FIRST_SEED]
  : Array.from({ length: RUNS }, (_, i) => FIRST_SEED + i)

type Kind = 'events' | 'venues' | 'organizers' | 'categories' | 'tags'
const KINDS: Kind[] = ['events', 'venues', 'organizers', 'categories', 'tags']

/** One client's view: ids seen so far (some already deleted: writes naming them race too). */
interface Pools {
  ids: Record<Kind, number[]>
}

/** The body of a random event write naming random records (by id, sometimes inline by name). */
function eventBody(random: ReturnType<typeof prng>, pools: Pools, full: boolean) {
  const body: Record<string, unknown> = {}
  const some = (kind: Kind) => random.some(pools.ids[kind].slice(-8), 0.3)
  if (full || random.chance(0.5)) {
    body.title = `Model ${random.pick(['Jazz', 'Film', 'Talk', 'Walk'])} ${random.int(0, 99)}`
    const day = 10 + random.int(0, 15)
    body.start_date = `2026-06-${day} 18:00:00`
    body.end_date = `2026-06-${day} 20:00:00`
  }
  if (random.chance(0.6)) {
    body.venue = random.chance(0.2)
      ? { venue: `Inline Hall ${random.int(0, 3)}` }
      : (random.pick(pools.ids.venues.slice(-8)) ?? null)
  }
  if (random.chance(0.5)) {
    body.organizer = random.chance(0.2)
      ? [{ organizer: `Inline Crew ${random.int(0, 3)}` }]
      : some('organizers')
  }
  if (random.chance(0.6)) {
    body.categories = random.chance(0.2) ? [`Inline Cat ${random.int(0, 3)}`] : some('categories')
  }
  if (random.chance(0.5))
    body.tags = random.chance(0.2) ? [`inline-${random.int(0, 3)}`] : some('tags')
  // Status on create only: a PATCH to `publish` would restore a trashed event, which could
  // then be deleted (and reported) again.
  if (full && random.chance(0.3)) body.status = random.pick(['publish', 'draft'])
  return body
}

/** One random operation: method, path, body, and the kind of what a 201 creates. */
function nextOperation(random: ReturnType<typeof prng>, pools: Pools, n: number) {
  const kind = random.pick(KINDS)!
  const target = random.pick(pools.ids[kind].slice(-10))
  const roll = random.next()
  if (target === undefined || roll < 0.35) {
    const name = `${kind} ${n}`
    const body: Record<string, unknown> =
      kind === 'events'
        ? eventBody(random, pools, true)
        : kind === 'venues'
          ? { venue: name }
          : kind === 'organizers'
            ? { organizer: name }
            : { name }
    if (kind === 'categories' && random.chance(0.5)) {
      body.parent = random.pick(pools.ids.categories.slice(-8)) ?? 0
    }
    return { method: 'POST', path: `/${kind}`, body, creates: kind }
  }
  if (roll < 0.75) {
    const body: Record<string, unknown> =
      kind === 'events'
        ? eventBody(random, pools, false)
        : kind === 'categories'
          ? { parent: random.chance(0.15) ? 0 : (random.pick(pools.ids.categories.slice(-8)) ?? 0) }
          : { description: `patched ${n}` }
    return { method: 'PATCH', path: `/${kind}/${target}`, body }
  }
  const force = kind === 'categories' || kind === 'tags' ? '?force=true' : ''
  return { method: 'DELETE', path: `/${kind}/${target}${force}`, kind, id: target }
}

describe.skipIf(!postgres)('calendar concurrency model on postgres', () => {
  let cal: CalHarness
  beforeAll(async () => {
    cal = await openCal(postgres!.open)
  })
  afterAll(async () => {
    await cal?.close()
  })

  it.each(SEEDS)('seed %i keeps every invariant', { timeout: 120_000 }, async (seed) => {
    // Each seed runs on empty tables, so every run's checks see only its own writes.
    await sql`truncate cal_event, cal_venue, cal_organizer, cal_term restart identity cascade`.execute(
      cal.database.db,
    )
    const pools: Pools = {
      ids: { events: [], venues: [], organizers: [], categories: [], tags: [] },
    }
    const deletes: DeleteTally = new Map()
    const serverErrors: string[] = []
    const answers = new Map<string, number>()
    let issued = 0
    const client = async (c: number) => {
      const random = prng(seed * 131 + c)
      while (issued < OPS) {
        const n = issued++
        const op = nextOperation(random, pools, n)
        const answer = await cal.call(op.method, op.path, { body: op.body, token: true })
        const seen = `${op.method} ${answer.status}`
        answers.set(seen, (answers.get(seen) ?? 0) + 1)
        if (answer.status >= 500) {
          serverErrors.push(
            `${op.method} ${op.path} ${JSON.stringify(op.body)} → ${answer.status} ${JSON.stringify(answer.body)}`,
          )
        }
        if (op.creates && answer.status === 201) pools.ids[op.creates].push(answer.body.id)
        if (op.method === 'DELETE' && op.kind && op.id !== undefined) {
          const key = `${op.kind}:${op.id}`
          const tally = deletes.get(key) ?? { kind: op.kind, id: op.id, reported: 0 }
          if (answer.status === 200) tally.reported++
          deletes.set(key, tally)
        }
      }
    }
    await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)))
    const breaks = [
      ...serverErrors.map((e) => `5xx: ${e}`),
      ...(await calendarInvariantBreaks(cal, deletes)),
    ]
    const mix = [...answers].sort().map(([k, n]) => `${k}×${n}`)
    expect(breaks.join('\n'), `seed ${seed} (replay: CAL_MODEL_SEED=${seed}); answers ${mix}`).toBe(
      '',
    )
    // Not vacuous: every method succeeded many times and some writes lost a race or a check.
    for (const method of ['POST 201', 'PATCH 200', 'DELETE 200']) {
      expect(answers.get(method) ?? 0, `seed ${seed}: ${mix}`).toBeGreaterThan(OPS / 20)
    }
    if (process.env.CAL_MODEL_VERBOSE) console.log(`seed ${seed}: ${mix}`)
  })
})
