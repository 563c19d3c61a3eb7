import { prng } from '@cal/store/testing'

// "A mirror converges" (issue 30): writers change the calendar at random while a mirror client
// runs a full sync (`/changes` without `since`: every record by key, then the changes since its
// start) and then follows /changes, fetching what it is told changed and dropping what was
// deleted. The calendar is seeded past one list page per collection, so a sync that paged by
// offset would skip records under the writers' deletes. At the end its copy must equal a fresh
// full list. Used in-process (cal-changes-mirror.test.ts) and over two kcore processes
// (packages/cli/test/cal-changes-processes.slow.full.test.ts).

/** An answer as the mirror needs it. */
export interface MirrorAnswer {
  status: number
  headers: Headers
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
  body: any
}

/** Calls the calendar API (`path` under `/cal/events/v1`); `holder`: with the write token. */
export type MirrorCall = (
  client: number,
  method: string,
  path: string,
  options?: { body?: unknown; holder?: boolean },
) => Promise<MirrorAnswer>

type Collection = 'events' | 'venues' | 'organizers' | 'categories' | 'tags'
const COLLECTIONS: Collection[] = ['events', 'venues', 'organizers', 'categories', 'tags']
const TYPE_OF: Record<string, Collection> = {
  event: 'events',
  venue: 'venues',
  organizer: 'organizers',
  category: 'categories',
  tag: 'tags',
}
const VISIBLE = 'publish,draft,pending,private,future'
/** Most records the writers make per collection. */
const CAP = 160
/** Largest page a list answers (the API clamps `per_page` at 50). */
const LIST_PAGE = 50

/** A copy of the calendar: per collection, id → the record's JSON (links reduced to ids). */
export type Copy = Record<Collection, Map<number, string>>

/**
 * A record as the mirror keeps it. Records embedded in an event (venue, organizers, terms)
 * change under their own type, so the event keeps their ids; a list read leaves the rest.
 */
function normalize(collection: Collection, record: Record<string, unknown>): string {
  // Links are built on the answering server's origin: two processes, two ports.
  return withoutOrigins(normalizeLinks(collection, record))
}

const withoutOrigins = (json: string) =>
  json.replace(/(https?:\/\/)?(localhost|127\.0\.0\.1):\d+/g, 'ORIGIN')

function normalizeLinks(collection: Collection, record: Record<string, unknown>): string {
  if (collection !== 'events') return JSON.stringify(record)
  const ids = (v: unknown) => (Array.isArray(v) ? v.map((x: { id: number }) => x.id) : [])
  const venue = record.venue as { id?: number } | unknown[]
  return JSON.stringify({
    ...record,
    venue: Array.isArray(venue) ? null : venue.id,
    organizer: ids(record.organizer),
    categories: ids(record.categories),
    tags: ids(record.tags),
  })
}

/** The query of page `page` of a full list of `collection` for this caller. */
function listQuery(collection: Collection, holder: boolean, page = 1): string {
  const status = holder ? `&status=${VISIBLE}` : ''
  const paging = `per_page=${LIST_PAGE}&page=${page}`
  if (collection === 'events') return `start_date=1000-01-01&end_date=9999-12-31&${paging}${status}`
  if (collection === 'categories' || collection === 'tags') return `hide_empty=false&${paging}`
  return `${paging}${status}`
}

async function ok(answer: Promise<MirrorAnswer>, what: string): Promise<MirrorAnswer> {
  const a = await answer
  if (a.status < 200 || a.status > 299)
    throw new Error(`${what} → ${a.status} ${JSON.stringify(a.body)}`)
  return a
}

/**
 * A full list of everything this caller sees, page by page (by offset: call it while nothing is
 * written, as the end of a run does), and the sync token of its first answer.
 */
export async function fullList(
  call: MirrorCall,
  client: number,
  holder: boolean,
): Promise<{ copy: Copy; token: string }> {
  const copy = {} as Copy
  let token: string | undefined
  for (const collection of COLLECTIONS) {
    copy[collection] = new Map()
    for (let page = 1; ; page++) {
      const path = `/${collection}?${listQuery(collection, holder, page)}`
      const answer = await ok(call(client, 'GET', path, { holder }), `GET ${path}`)
      token ??= answer.headers.get('x-cal-sync-token') ?? undefined
      for (const r of answer.body[collection] as { id: number; hide_from_listings?: boolean }[]) {
        if (!r.hide_from_listings) copy[collection].set(r.id, normalize(collection, r))
      }
      if (page * LIST_PAGE >= answer.body.total) break
    }
  }
  if (!token) throw new Error('a list answer had no X-CAL-Sync-Token')
  return { copy, token }
}

/** An empty copy, for a full sync to fill. */
const emptyCopy = (): Copy => ({
  events: new Map(),
  venues: new Map(),
  organizers: new Map(),
  categories: new Map(),
  tags: new Map(),
})

/**
 * Applies the changes after `token` (none: a full sync) until `more` is false; returns the last
 * token. A record the feed says exists that a read then does not find goes into `unexplained`
 * until a later change of it comes: at the end nothing may be left there (the feed told of no
 * record it cannot show). A full sync's pages are exempt: a record made and deleted after the
 * sync began is listed, then never reported (the feed folds it away).
 */
export async function followChanges(
  call: MirrorCall,
  client: number,
  holder: boolean,
  copy: Copy,
  token: string | undefined,
  perPage: number,
  log: string[],
  unexplained: Set<string>,
): Promise<string> {
  for (let since = token; ; ) {
    // A full sync's cursor is a token starting with `s` (test knowledge, not API).
    const initial = since === undefined || since.startsWith('s')
    const query = since === undefined ? '' : `since=${encodeURIComponent(since)}&`
    const path = `/changes?${query}per_page=${perPage}`
    const page = (await ok(call(client, 'GET', path, { holder }), `GET ${path}`)).body
    if (page.changes.length > perPage)
      throw new Error(`page of ${page.changes.length} > ${perPage}`)
    const keys = page.changes.map((c: { type: string; id: number }) => `${c.type}:${c.id}`)
    if (new Set(keys).size !== keys.length) throw new Error(`a record twice on one page: ${keys}`)
    const wanted: Record<Collection, number[]> = {
      events: [],
      venues: [],
      organizers: [],
      categories: [],
      tags: [],
    }
    for (const c of page.changes as { type: string; id: number; action: string }[]) {
      const collection = TYPE_OF[c.type] as Collection
      log.push(`${c.type}.${c.action}:${c.id}`)
      unexplained.delete(`${collection} ${c.id}`)
      if (c.action === 'deleted') copy[collection].delete(c.id)
      else wanted[collection].push(c.id)
    }
    const gone = await refetch(call, client, holder, copy, wanted)
    if (!initial) for (const key of gone) unexplained.add(key)
    since = page.next_since
    if (!page.more) return page.next_since as string
  }
}

/** Reads the records the feed named and puts them in (or, gone meanwhile, takes them out). */
async function refetch(
  call: MirrorCall,
  client: number,
  holder: boolean,
  copy: Copy,
  wanted: Record<Collection, number[]>,
): Promise<string[]> {
  const missing: string[] = []
  for (let i = 0; i < wanted.events.length; i += LIST_PAGE) {
    const chunk = wanted.events.slice(i, i + LIST_PAGE)
    const status = holder ? `&status=${VISIBLE}` : ''
    const path = `/events?include=${chunk.join(',')}&per_page=${LIST_PAGE}${status}`
    const found = new Map<number, Record<string, unknown>>(
      (await ok(call(client, 'GET', path, { holder }), `GET ${path}`)).body.events.map(
        (e: { id: number }) => [e.id, e],
      ),
    )
    for (const id of chunk) {
      const e = found.get(id)
      if (e && !e.hide_from_listings) copy.events.set(id, normalize('events', e))
      else {
        copy.events.delete(id)
        if (!e) missing.push(`events ${id}`)
      }
    }
  }
  for (const collection of ['venues', 'organizers', 'categories', 'tags'] as const) {
    for (const id of wanted[collection]) {
      const answer = await call(client, 'GET', `/${collection}/${id}`, { holder })
      if (answer.status === 200) copy[collection].set(id, normalize(collection, answer.body))
      else if ([403, 404].includes(answer.status)) {
        copy[collection].delete(id)
        missing.push(`${collection} ${id}`)
      } else throw new Error(`GET /${collection}/${id} → ${answer.status}`)
    }
  }
  return missing
}

/** The differences between two copies, as readable lines (none: equal). */
export function copyDiff(mirror: Copy, fresh: Copy): string[] {
  const lines: string[] = []
  for (const collection of COLLECTIONS) {
    for (const [id, json] of fresh[collection]) {
      const mine = mirror[collection].get(id)
      if (mine === undefined) lines.push(`${collection} ${id} missing from the mirror`)
      else if (mine !== json) lines.push(`${collection} ${id} differs:\n  ${mine}\n  ${json}`)
    }
    for (const id of mirror[collection].keys()) {
      if (!fresh[collection].has(id)) lines.push(`${collection} ${id} only in the mirror`)
    }
  }
  return lines
}

/** Runs `ops` random writes for one writer client. */
async function writer(call: MirrorCall, client: number, seed: number, ops: number) {
  const rnd = prng(seed * 1000 + client)
  const w = (method: string, path: string, body?: unknown) =>
    call(client, method, path, { body, holder: true })
  /** Ids of a random list page (a pick among them), `total` of the collection. */
  const idsOf = async (collection: Collection) => {
    const a = await w('GET', `/${collection}?${listQuery(collection, true, rnd.int(1, 3))}`)
    const ids = a.status === 200 ? (a.body[collection] as { id: number }[]).map((r) => r.id) : []
    return Object.assign(ids, { total: a.status === 200 ? Number(a.body.total) : 0 })
  }
  const start = () => {
    const day = rnd.int(1, 28)
    return `2026-0${rnd.int(3, 9)}-${String(day).padStart(2, '0')} ${rnd.int(10, 20)}:00:00`
  }
  for (let i = 0; i < ops; i++) {
    const roll = rnd.next()
    if (roll < 0.3) {
      const events = await idsOf('events')
      const id = events.length > 0 && rnd.chance(0.75) ? rnd.pick(events) : undefined
      const [venues, organizers, categories, tags] = await Promise.all([
        idsOf('venues'),
        idsOf('organizers'),
        idsOf('categories'),
        idsOf('tags'),
      ])
      const body: Record<string, unknown> = { title: `Event ${client}.${i}` }
      if (rnd.chance(0.4)) body.status = rnd.pick(['publish', 'publish', 'draft', 'private'])
      if (rnd.chance(0.3)) body.password = rnd.chance(0.5) ? `pw${i}` : null
      if (rnd.chance(0.4) && venues.length) body.venue = rnd.pick(venues)
      if (rnd.chance(0.3)) body.organizer = rnd.some(organizers, 0.3)
      if (rnd.chance(0.4)) body.categories = rnd.some(categories, 0.3)
      if (rnd.chance(0.3)) body.tags = rnd.some(tags, 0.3)
      if (id === undefined) {
        if (events.total >= CAP) continue
        const s = start()
        await w('POST', '/events', { ...body, start_date: s, end_date: s })
      } else {
        await w('POST', `/events/${id}`, body)
      }
    } else if (roll < 0.42) {
      const events = await idsOf('events')
      if (events.length) await w('DELETE', `/events/${rnd.pick(events)}`)
    } else if (roll < 0.7) {
      const collection = rnd.pick(['venues', 'organizers'] as const)
      const ids = await idsOf(collection)
      const field = collection === 'venues' ? 'venue' : 'organizer'
      const r = rnd.next()
      if (r < 0.35 && ids.total < CAP) {
        await w('POST', `/${collection}`, { [field]: `${field} ${client}.${i}` })
      } else if (r < 0.8 && ids.length) {
        const patch: Record<string, unknown> = { [field]: `${field} ${client}.${i}b` }
        if (rnd.chance(0.3)) patch.status = rnd.pick(['publish', 'draft'])
        await w('POST', `/${collection}/${rnd.pick(ids)}`, patch)
      } else if (ids.length) {
        await w('DELETE', `/${collection}/${rnd.pick(ids)}`)
      }
    } else {
      const collection = rnd.pick(['categories', 'tags'] as const)
      const ids = await idsOf(collection)
      const r = rnd.next()
      if (r < 0.45 && ids.total < CAP) {
        await w('POST', `/${collection}`, { name: `term ${client}.${i}` })
      } else if (r < 0.75 && ids.length) {
        await w('POST', `/${collection}/${rnd.pick(ids)}`, { description: `d${i}` })
      } else if (ids.length) {
        await w('DELETE', `/${collection}/${rnd.pick(ids)}`)
      }
    }
  }
}

/** What a mirror run found. */
export interface MirrorRun {
  /** Differences between each mirror and a fresh list at the end (empty: converged). */
  diffs: string[]
  /** Changes each mirror applied (anonymous, holder). */
  applied: [number, number]
  /** The event lists a holder client read while the writers wrote, with their tokens. */
  lists: ListSample[]
}

/** One list answer: the revision its token stands at, its total and what it showed. */
export interface ListSample {
  /** The revision in the token (test knowledge, not API: the token starts with it). */
  revision: number
  /** Whether writes were still in flight when the list was answered. */
  duringWrites: boolean
  total: number
  events: { id: number; status: string; modified_utc: string }[]
}

/** Every event a holder may list, first page: each sample is checked against the history. */
const PROBE_LIST = `/events?start_date=1000-01-01&end_date=9999-12-31&per_page=${LIST_PAGE}&status=${VISIBLE}`

/** Lists events as a token holder until `done()`, keeping each answer as a {@link ListSample}. */
async function listProbe(call: MirrorCall, client: number, done: () => boolean) {
  const samples: ListSample[] = []
  while (!done() || samples.length === 0) {
    const answer = await ok(call(client, 'GET', PROBE_LIST, { holder: true }), PROBE_LIST)
    const token = answer.headers.get('x-cal-sync-token') ?? ''
    samples.push({
      revision: Number(token.split(/[.-]/)[0]),
      duringWrites: !done(),
      total: Number(answer.body.total),
      events: (answer.body.events as ListSample['events']).map(({ id, status, modified_utc }) => ({
        id,
        status,
        modified_utc,
      })),
    })
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  return samples
}

/** The history of every event the feed keeps: per event, its (revision, status, modified). */
export type EventHistory = Map<
  number,
  { revision: number; status: string | null; modified: string }[]
>

/**
 * "Sees nothing twice" (and misses nothing): a list must show its token's revision exactly,
 * since following the feed from the token reports every change after that revision. Each
 * sample is checked against `history` (the feed's own rows, oldest first): its total is the
 * number of events alive and not trashed at the revision, and each event it shows had, at that
 * revision, the status and `modified` (to the second) it shows. A list read after a commit its
 * token does not cover shows that change, which the feed then reports again (or a created event
 * the feed will announce as new). Returns the differences as lines.
 */
export function listsAtTheirTokens(
  samples: readonly ListSample[],
  history: EventHistory,
): string[] {
  const at = (id: number, revision: number) => {
    let state: { status: string | null; modified: string } | undefined
    for (const row of history.get(id) ?? []) {
      if (row.revision > revision) break
      state = row
    }
    return state
  }
  const lines: string[] = []
  for (const sample of samples) {
    let alive = 0
    for (const id of history.keys()) {
      const status = at(id, sample.revision)?.status
      if (status && status !== 'trash') alive++
    }
    if (alive !== sample.total) {
      lines.push(`list at ${sample.revision}: total ${sample.total}, ${alive} events then`)
    }
    for (const e of sample.events) {
      const then = at(e.id, sample.revision)
      if (then?.status !== e.status || then.modified !== e.modified_utc) {
        lines.push(
          `list at ${sample.revision}: event ${e.id} shown ${e.status} ${e.modified_utc}, ` +
            `then ${then?.status} ${then?.modified}`,
        )
      }
    }
  }
  return lines
}

/**
 * Seeds a few records and `events` events (default 120: more than two list pages), then runs
 * `writers` writer clients of `ops` writes each at once with an anonymous and a token-holding
 * mirror that full-sync and follow the feed (pages of `perPage`) until the writers are done,
 * then once more; each is compared with a fresh full list.
 */
export async function runMirror(options: {
  call: MirrorCall
  seed: number
  writers: number
  ops: number
  perPage?: number
  events?: number
}): Promise<MirrorRun> {
  const { call, seed, writers, ops, events = 120 } = options
  const perPage = options.perPage ?? 1 + (seed % 7)
  const w = (method: string, path: string, body: unknown) =>
    call(0, method, path, { body, holder: true })
  for (const [path, body] of [
    ['/venues', { venue: `Seed hall ${seed}` }],
    ['/organizers', { organizer: `Seed org ${seed}` }],
    ['/categories', { name: `Seed cat ${seed}` }],
    ['/tags', { name: `Seed tag ${seed}` }],
    [
      '/events',
      { title: 'Seed', start_date: '2026-04-01 10:00:00', end_date: '2026-04-01 11:00:00' },
    ],
  ] as const) {
    await ok(w('POST', path, body), `POST ${path}`)
  }
  for (let i = 0; i < events; i++) {
    const status = i % 5 === 4 ? 'draft' : 'publish'
    const body = { title: `Seed ${i}`, status, start_date: '2026-04-02 10:00:00' }
    await ok(w('POST', '/events', { ...body, end_date: '2026-04-02 11:00:00' }), 'POST /events')
  }
  let writing = true
  const writes = Promise.all(
    Array.from({ length: writers }, (_, k) => writer(call, k + 1, seed, ops)),
  ).finally(() => {
    writing = false
  })
  const mirror = async (holder: boolean) => {
    const client = holder ? writers + 2 : writers + 1
    const log: string[] = []
    const copy = emptyCopy()
    const unexplained = new Set<string>()
    let since = await followChanges(
      call,
      client,
      holder,
      copy,
      undefined,
      perPage,
      log,
      unexplained,
    )
    while (writing) {
      since = await followChanges(call, client, holder, copy, since, perPage, log, unexplained)
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    await writes
    await followChanges(call, client, holder, copy, since, perPage, log, unexplained)
    const fresh = await fullList(call, client, holder)
    const who = holder ? 'holder' : 'anonymous'
    const diffs = copyDiff(copy, fresh.copy)
    for (const key of unexplained) diffs.push(`${key}: the feed told of it, never readable`)
    return { diffs: diffs.map((d) => `${who}: ${d}`), applied: log.length }
  }
  const [anonymous, holder, lists] = await Promise.all([
    mirror(false),
    mirror(true),
    listProbe(call, writers + 3, () => !writing),
    writes,
  ])
  return {
    diffs: [...anonymous.diffs, ...holder.diffs],
    applied: [anonymous.applied, holder.applied],
    lists,
  }
}
