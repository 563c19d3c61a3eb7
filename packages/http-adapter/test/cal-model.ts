import { prng } from '@cal/store/testing'
import { seedRun } from '@kcore/db/testing'
import type { DeleteTally } from './cal-invariants.js'

// The random workload of the calendar concurrency model (issue 11), shared by the in-process
// suite (`cal-concurrency-model.slow.test.ts`) and the two-process one (`packages/cli/test`).

/** One answer of the API under test. */
export interface ModelAnswer {
  status: number
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies
  body: any
}

/** Sends one authorised write from client `client` (several clients may share a server). */
export type ModelCall = (
  client: number,
  method: string,
  path: string,
  body: unknown,
) => Promise<ModelAnswer>

/**
 * The seeds to run: `CAL_MODEL_SEED` replays one; else `CAL_MODEL_RUNS` (default `runs`)
 * seeds in a row ({@link seedRun}: CI's pinned seed, a fresh one elsewhere).
 */
export function modelSeeds(runs: number, env = process.env): number[] {
  if (env.CAL_MODEL_SEED) return [Number(env.CAL_MODEL_SEED)]
  return seedRun('calendar model', Number(env.CAL_MODEL_RUNS ?? runs), env)
}

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

/** What one run saw: answers by `METHOD status`, deletion reports, and every 5xx. */
export interface ModelRun {
  answers: Map<string, number>
  deletes: DeleteTally
  serverErrors: string[]
  /** The answers as one line, for failure messages. */
  mix: string
}

/**
 * Runs `ops` operations from `clients` concurrent clients, each drawing its operations from
 * its own PRNG seeded from `seed`; clients share the pool of ids created so far (and keep
 * naming deleted ones, which is where the races are).
 */
export async function runCalModel(options: {
  seed: number
  ops: number
  clients: number
  call: ModelCall
}): Promise<ModelRun> {
  const pools: Pools = {
    ids: { events: [], venues: [], organizers: [], categories: [], tags: [] },
  }
  const deletes: DeleteTally = new Map()
  const serverErrors: string[] = []
  const answers = new Map<string, number>()
  let issued = 0
  const client = async (c: number) => {
    const random = prng(options.seed * 131 + c)
    while (issued < options.ops) {
      const n = issued++
      const op = nextOperation(random, pools, n)
      const answer = await options.call(c, op.method, op.path, op.body)
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
  await Promise.all(Array.from({ length: options.clients }, (_, c) => client(c)))
  const mix = [...answers]
    .sort()
    .map(([k, n]) => `${k}×${n}`)
    .join(',')
  return { answers, deletes, serverErrors, mix }
}

/** The tables a run writes, emptied (ids restarted) so each seed's checks see only its writes. */
export const MODEL_TABLES = 'cal_event, cal_venue, cal_organizer, cal_term'
