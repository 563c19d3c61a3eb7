import { readFile } from 'node:fs/promises'
import { createCalStore, MAX_EVENT_LINKS, MAX_YEAR, MIN_YEAR, seedDemoCalendar } from '@cal/store'
import type { Database } from '@kcore/db'
import { openTestPglite } from '@kcore/db/testing'
import { decomposeSnapshot } from '@kcore/engine'
import { createKcoreStore } from '@kcore/store'
import { followSource, type WebhookSource, webhookSubscriptions } from '@kcore/webhooks'
import fc from 'fast-check'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { calWebhookSource, createHandler, type Handler, WEBHOOK_EVENTS } from '../src/index.js'
import { caidaFile, emptyProvider } from './kcore-helpers.js'

// Hostile requests through the fetch handler on PGlite: random and adversarial paths, query
// strings, bodies, methods and content types. No answer may be a 5xx, every error must be the
// common envelope, and a refused write must leave the database exactly as it was.
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000)
const TOKEN = 'fuzz-token'

let database: Database
let handler: Handler
let tables: string[]
let source: WebhookSource

beforeAll(async () => {
  database = await openTestPglite()
  const kcore = createKcoreStore(database)
  // Webhooks on: the messages of every accepted write are made after it (see the calendar run).
  const cal = createCalStore(database)
  source = calWebhookSource(cal)
  await kcore.migrate()
  await cal.migrate()
  const { decomposition, graph } = await decomposeSnapshot(await readFile(caidaFile('19980101')))
  await kcore.ingest({
    ipVersion: 'ipv4',
    date: '1998-01-01',
    decomposition,
    linkCount: graph.linkCount,
  })
  await seedDemoCalendar(cal, { now: new Date('2026-03-01T12:00:00Z') })
  const webhooks = webhookSubscriptions(database, {
    events: WEBHOOK_EVENTS,
    // No lookup leaves the machine: every name resolves to one public address.
    lookup: async () => [{ address: '93.184.216.34' }],
  })
  // One subscriber to everything, so accepted calendar writes do make messages.
  await webhooks.subscribe('cal', {
    url: 'https://93.184.216.34/all',
    events: [...WEBHOOK_EVENTS.cal],
  })
  handler = createHandler({
    kcore: {
      store: kcore,
      provider: emptyProvider,
      version: 'fuzz',
      adminToken: 'admin',
      webhooks,
    },
    cal: { store: cal, tokens: [TOKEN], webhooks },
  })
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`.execute(database.db)
  tables = rows.map((r) => r.name)
}, 120_000)

afterAll(async () => {
  await handler?.close()
  await database?.close()
})

/**
 * What a refused write must leave alone, in one statement: both data revisions (every committed
 * change to a calendar table moves `cal_revision` through its triggers, every ingest moves
 * `kcore_revision`) and the row count of every table (operational tables such as the sync state
 * have no revision).
 */
async function fingerprint(): Promise<string> {
  const counts = tables.map((t) => sql`select ${t} || ':' || count(*) as h from ${sql.table(t)}`)
  const { rows } = await sql<{ h: string }>`
    select 'cal_revision:' || n as h from cal_revision
    union all select 'kcore_revision:' || revision from kcore_revision
    union all ${sql.join(counts, sql` union all `)}`.execute(database.db)
  return rows.map((r) => r.h).join(';')
}

const nasty = fc.constantFrom(
  '',
  '0',
  '-1',
  '1.5',
  '1e3',
  '4294967296',
  '99999999999999999999999',
  'NaN',
  'null',
  'true',
  '__proto__',
  'constructor',
  'prototype',
  "'; drop table cal_event; --",
  '%00',
  '%',
  '%zz',
  '..',
  '../..',
  '\u0000',
  'ñandú',
  '😀',
  'a'.repeat(3000),
  '1 OR 1=1',
  '{}',
  '[]',
  '2024-02-30',
  '2024-13-01',
)
const y4 = (y: number) => (y < 0 ? `-${String(-y).padStart(6, '0')}` : String(y).padStart(4, '0'))
/**
 * Boundary dates derived from each schema's rule: the k-core dates (0001-01-01…9999-12-31) and
 * the calendar's (MIN_YEAR…MAX_YEAR in the zone read) just inside and just outside, as dates,
 * date-times, with far offsets and as Unix seconds; plus the years Date.UTC misreads.
 */
const dateBank = fc.constantFrom(
  ...[
    0,
    1,
    99,
    100,
    999,
    MIN_YEAR - 1,
    MIN_YEAR,
    1582,
    1900,
    1969,
    1970,
    2038,
    MAX_YEAR,
    MAX_YEAR + 1,
  ].flatMap((y) => [`${y4(y)}-01-01`, `${y4(y)}-12-31`, `${y4(y)}-02-29`]),
  '0050-01-01 10:00:00',
  `${y4(MIN_YEAR - 1)}-12-31 23:59:59`,
  `${MIN_YEAR}-01-01 00:00:00`,
  `${MIN_YEAR}-01-01 00:00:00+14:00`,
  `${MAX_YEAR}-12-31 23:59:59`,
  `${MAX_YEAR}-12-31 23:59:59-12:00`,
  '2027-01-01 00:00:00',
  '+275760-09-13',
  '-271821-04-20',
  String(Date.UTC(MIN_YEAR, 0, 1) / 1000 - 1),
  String(Date.UTC(MAX_YEAR, 11, 31, 23, 59, 59) / 1000 + 1),
  '8640000000000',
  '99999999999999999',
  '542386800',
  '-1',
  // Wall times some zones skip (issue 26 item 7): New York's spring-forward hour, Samoa's day.
  '2026-03-08 02:30:00',
  '2011-12-30 12:00:00',
)
const token = fc.oneof(fc.string({ maxLength: 20 }), nasty, dateBank)
const segment = fc.oneof(
  token.map((s) => encodeURIComponent(s)),
  fc.nat().map(String),
  nasty,
)

function paths(prefix: string, templates: string[]) {
  return fc
    .tuple(fc.constantFrom(...templates), fc.array(segment, { maxLength: 3 }), fc.boolean())
    .map(([tpl, segs, extra]) => {
      let i = 0
      const filled = tpl.replace(/:\w+/g, () => segs[i++] ?? '1')
      return `${prefix}${filled}${extra && segs.length ? `/${segs.join('/')}` : ''}`
    })
}

const query = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom(
          'ip_version',
          'start_date',
          'end_date',
          'k',
          'top',
          'limit',
          'min_shell',
          'format',
          'from',
          'to',
          'page',
          'per_page',
          'since',
          'search',
          'categories',
          'tags',
          'venue',
          'include',
          'geoloc_lat',
          'geoloc_lng',
          'geoloc_radius',
          'status',
          'password',
          'orderby',
          'order',
          'hide_empty',
          'strict_dates',
          'starts_after',
          '__proto__',
        ),
        token,
      ),
      token,
    ),
    { maxLength: 5 },
  )
  .map((pairs) => (pairs.length ? `?${new URLSearchParams(pairs).toString()}` : ''))

const deep = (depth: number): unknown => (depth === 0 ? 1 : { a: [deep(depth - 1)] })
/**
 * Relation arrays around and far past the write limit (issue 26 items 1 and 6): ids, names and
 * out-of-range numbers, up to more ids than PostgreSQL takes bound parameters (65,535).
 */
const bigArray = fc.constantFrom(
  ...[MAX_EVENT_LINKS, MAX_EVENT_LINKS + 1, 70_000].flatMap((n) => [
    Array.from({ length: n }, (_, i) => i + 1),
    Array.from({ length: Math.min(n, MAX_EVENT_LINKS + 1) }, (_, i) => `big ${i}`),
  ]),
  Array.from({ length: MAX_EVENT_LINKS }, () => 2 ** 31),
)
/** Subscription targets: public, private, loopback, not http, credentials, too long. */
const webhookUrl = fc.constantFrom(
  'https://93.184.216.34/hook',
  'http://receiver.example/h',
  'http://127.0.0.1/',
  'http://10.0.0.1/',
  'http://[::1]/',
  'http://[::ffff:192.168.0.1]/',
  'ftp://93.184.216.34/',
  'https://u:p@93.184.216.34/',
  `https://93.184.216.34/${'a'.repeat(2100)}`,
  'https://',
  'javascript:alert(1)',
)
const webhookEvents = fc.oneof(
  fc.subarray([...WEBHOOK_EVENTS.cal], { minLength: 1 }),
  fc.subarray([...WEBHOOK_EVENTS.kcore], { minLength: 1 }),
  fc.subarray([...WEBHOOK_EVENTS.cal, ...WEBHOOK_EVENTS.kcore]),
  fc.array(fc.oneof(fc.string({ maxLength: 20 }), nasty), { maxLength: 3 }),
  fc.constant(Array.from({ length: 101 }, () => 'event.created')),
)
const webhookish = fc.oneof(webhookUrl, webhookEvents)
/** Recurrence values: hostile but valid rules, refusals, wrong shapes (issue #29). */
const recurrenceish = fc.oneof(
  fc.record({
    rules: fc.array(
      fc.oneof(
        fc.constantFrom(
          'FREQ=DAILY',
          'FREQ=YEARLY;COUNT=1000000000',
          'FREQ=MONTHLY;BYSETPOS=-366;BYDAY=MO',
          'FREQ=DAILY;UNTIL=99991231T235959Z',
          'FREQ=YEARLY;BYDAY=-53MO',
          'FREQ=MINUTELY',
          'FREQ=DAILY;BYSECOND=1,2',
        ),
        nasty,
      ),
      { maxLength: 12 },
    ),
    exdates: fc.oneof(
      dateBank.map((d) => [d]),
      bigArray,
    ),
  }),
  fc.constantFrom('this', 'following', 'all', 'FREQ=DAILY'),
)
const jsonish = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.dictionary(
    fc.constantFrom(
      'asns',
      'ip_versions',
      'title',
      'start_date',
      'end_date',
      'venue',
      'organizer',
      'categories',
      'tags',
      'name',
      'parent',
      'cost',
      'timezone',
      'all_day',
      'password',
      'image',
      'website',
      'slug',
      'status',
      'url',
      'events',
      'recurrence',
      'scope',
      '__proto__',
      'constructor',
    ),
    fc.oneof(fc.jsonValue({ maxDepth: 2 }), nasty, bigArray, webhookish, recurrenceish),
  ),
  fc.record({ url: fc.oneof(webhookUrl, nasty), events: fc.oneof(webhookEvents, nasty) }),
  fc.constant(deep(500)),
)
const body = fc.oneof(
  fc.constant(undefined),
  jsonish.map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  fc.constantFrom('{', '{"a":', '\u0000', '[1,2', 'null', '""'),
)
const method = fc.constantFrom(
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'HEAD',
  'OPTIONS',
  'PROPFIND',
)
const contentType = fc.constantFrom(
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/vnd.api+json',
)
const auth = fc.constantFrom(
  undefined,
  '',
  'Bearer',
  'Bearer ',
  `Bearer ${TOKEN}`,
  'Bearer wrong',
  'Bearer admin',
  'Basic Zm9vOmJhcg==',
)

async function check(
  url: string,
  m: string,
  b: string | undefined,
  type: string | undefined,
  a: string | undefined,
): Promise<number> {
  // PGlite answers through microtasks only; yield a macrotask so the test worker's RPC with
  // vitest keeps flowing during a long property run.
  await new Promise((resolve) => setImmediate(resolve))
  const headers: Record<string, string> = {}
  if (type) headers['content-type'] = type
  if (a !== undefined) headers.authorization = a
  const hasBody = b !== undefined && m !== 'GET' && m !== 'HEAD'
  const write = !['GET', 'HEAD', 'OPTIONS'].includes(m)
  const before = write ? await fingerprint() : ''
  const res = await handler(
    new Request(`http://fuzz.test${url}`, { method: m, headers, body: hasBody ? b : undefined }),
  )
  expect(res.status, `${m} ${url}`).toBeLessThan(500)
  if (res.status >= 400) {
    if (write) expect(await fingerprint(), `refused ${m} ${url} changed the database`).toBe(before)
    if (m !== 'HEAD') {
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
      const envelope = await res.json()
      expect(envelope).toMatchObject({
        error: expect.any(String),
        message: expect.any(String),
        status: res.status,
      })
      const path = new URL(`http://x${url}`).pathname
      if (path === '/cal/events/v1' || path.startsWith('/cal/events/v1/')) {
        expect(envelope).toMatchObject({ code: envelope.error, data: { status: res.status } })
      }
    }
  } else {
    await res.arrayBuffer()
  }
  return res.status
}

const kcorePaths = paths('/api', [
  '',
  '/health',
  '/summary',
  '/trends/:asn',
  '/trends',
  '/snapshots',
  '/snapshots/:date',
  '/snapshots/:date/shells',
  '/snapshots/:date/core',
  '/snapshots/:date/distribution',
  '/movers',
  '/asns/:asn',
  '/refresh',
  '/scheduler/status',
  '/scheduler/update',
  '/openapi.json',
  '/webhooks',
  '/webhooks/:id',
  '/webhooks/:id/deliveries',
  '/:x',
])
const calPaths = paths('/cal/events/v1', [
  '',
  '/doc',
  '/events',
  '/events/:id',
  '/events/by-slug/:slug',
  '/venues',
  '/venues/:id',
  '/venues/by-slug/:slug',
  '/organizers',
  '/organizers/:id',
  '/categories',
  '/categories/:id',
  '/tags',
  '/tags/:id',
  '/tags/by-slug/:slug',
  '/changes',
  '/webhooks',
  '/webhooks/:id',
  '/webhooks/:id/deliveries',
  '/:x',
])

/** Every GET operation of an OpenAPI document: its path template and its parameters. */
async function documentedGets(url: string) {
  const doc = (await (await handler(new Request(`http://fuzz.test${url}`))).json()) as {
    paths: Record<string, { get?: { parameters?: { name: string; in: string }[] } }>
  }
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    item.get ? [{ path, parameters: item.get.parameters ?? [] }] : [],
  )
}

// The sweep's tokens: the names on Object.prototype (a lookup table indexed by client text
// finds them) and one of each kind of nasty value; at full size, every nasty and boundary date.
const SWEEP_TOKENS =
  RUNS >= 10_000
    ? [...fc.sample(nasty, { numRuns: 1_000 }), ...fc.sample(dateBank, { numRuns: 1_000 })]
    : ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '', '-1', '1e3', 'a'.repeat(3000)]

describe('fuzzing the handler', () => {
  it('sweep: every documented GET parameter of both APIs, alone, with every hostile token', async () => {
    const tokens = [...new Set(SWEEP_TOKENS)]
    const operations = [
      ...(await documentedGets('/api/openapi.json')),
      ...(await documentedGets('/cal/events/v1/doc')),
    ]
    expect(operations.length).toBeGreaterThan(20)
    let requests = 0
    for (const { path, parameters } of operations) {
      const fill = (name: string, value: string) =>
        path.replace(/\{(\w+)\}/g, (_, p: string) =>
          encodeURIComponent(p === name ? value : p === 'date' ? '1998-01-01' : '1'),
        )
      for (const parameter of parameters) {
        for (const value of tokens) {
          const url =
            parameter.in === 'path'
              ? fill(parameter.name, value)
              : `${fill('', '')}?${new URLSearchParams([[parameter.name, value]])}`
          await check(url, 'GET', undefined, undefined, undefined)
          requests++
        }
      }
    }
    expect(requests).toBeGreaterThan(100)
  }, 600_000)

  it('date bank: events made of boundary dates never break a list or a trend', async () => {
    const dateQuery = fc
      .array(
        fc.tuple(
          fc.constantFrom(
            'start_date',
            'end_date',
            'starts_before',
            'starts_after',
            'ends_before',
            'ends_after',
          ),
          dateBank,
        ),
        { maxLength: 3 },
      )
      .map((pairs) => new URLSearchParams(pairs).toString())
    await fc.assert(
      fc.asyncProperty(
        dateBank,
        dateBank,
        fc.constantFrom(
          'UTC',
          'America/Los_Angeles',
          'Pacific/Kiritimati',
          'Etc/GMT+12',
          'Etc/GMT-14',
          'Pacific/Apia',
          'America/New_York',
          'America/Havana',
        ),
        dateQuery,
        fc.boolean(),
        async (start, end, timezone, q, strict) => {
          const body = JSON.stringify({ title: 'bank', start_date: start, end_date: end, timezone })
          await check('/cal/events/v1/events', 'POST', body, 'application/json', `Bearer ${TOKEN}`)
          const tail = `${q}${strict ? '&strict_dates=1' : ''}`
          for (const list of ['/events', '/events?search=bank', `/events?${tail}`])
            await check(`/cal/events/v1${list}`, 'GET', undefined, undefined, undefined)
          await check(`/api/trends/701?${q}`, 'GET', undefined, undefined, undefined)
          const trends = JSON.stringify({ asns: [701], start_date: start, end_date: end })
          await check('/api/trends', 'POST', trends, 'application/json', undefined)
        },
      ),
      { numRuns: Math.min(RUNS, 100) },
    )
  }, 600_000)

  it(`k-core API: ${RUNS} hostile requests, no 5xx, envelopes, refused writes change nothing`, async () => {
    await fc.assert(
      fc.asyncProperty(
        kcorePaths,
        query,
        method,
        body,
        contentType,
        auth,
        async (p, q, m, b, t, a) => {
          await check(p + q, m, b, t, a)
        },
      ),
      { numRuns: RUNS },
    )
  }, 600_000)

  it('webhook routes of both APIs: hostile subscriptions, ids and limits', async () => {
    const statuses = new Set<number>()
    const valid = (events: string[]) =>
      JSON.stringify({ url: 'https://93.184.216.34/hook', events })
    const target = fc.oneof(
      fc
        .constantFrom('/cal/events/v1', '/api')
        .chain((base) =>
          fc.tuple(
            fc.constant(base),
            fc.constant(base === '/api' ? 'Bearer admin' : `Bearer ${TOKEN}`),
          ),
        ),
      fc.tuple(fc.constantFrom('/cal/events/v1', '/api'), auth),
    )
    const sub = fc.oneof(
      fc.record({ url: webhookUrl, events: webhookEvents }).map((v) => JSON.stringify(v)),
      body,
    )
    const where = fc.oneof(
      fc.constant('/webhooks'),
      segment.map((id) => `/webhooks/${id}`),
      fc.tuple(segment, query).map(([id, q]) => `/webhooks/${id}/deliveries${q}`),
    )
    await fc.assert(
      fc.asyncProperty(
        target,
        where,
        fc.constantFrom('GET', 'POST', 'DELETE'),
        sub,
        async ([base, a], w, m, b) => {
          statuses.add(await check(`${base}${w}`, m, b, 'application/json', a))
        },
      ),
      {
        numRuns: Math.max(100, Math.min(RUNS, 2_000)),
        // Each outcome at least once whatever the seed: made (both APIs), refused, unknown id,
        // no token.
        examples: [
          [['/cal/events/v1', `Bearer ${TOKEN}`], '/webhooks', 'POST', valid(['event.created'])],
          [['/api', 'Bearer admin'], '/webhooks', 'POST', valid(['snapshot.added'])],
          [['/cal/events/v1', `Bearer ${TOKEN}`], '/webhooks', 'POST', valid(['event.exploded'])],
          [['/api', 'Bearer admin'], '/webhooks/nope', 'DELETE', undefined],
          [['/cal/events/v1', undefined], '/webhooks', 'GET', undefined],
        ],
      },
    )
    // Every outcome was reached: made, refused, unknown id, no token.
    for (const status of [201, 400, 401, 404]) expect(statuses).toContain(status)
  }, 600_000)

  it(`calendar API: ${RUNS} hostile requests, no 5xx, envelopes, refused writes change nothing`, async () => {
    await fc.assert(
      fc.asyncProperty(
        calPaths,
        query,
        method,
        body,
        contentType,
        auth,
        async (p, q, m, b, t, a) => {
          await check(p + q, m, b, t, a)
        },
      ),
      { numRuns: RUNS },
    )
    // What the accepted writes stored renders into messages (none breaks the sender's pass).
    const db = database.db
    while (await followSource(db, source, 100)) {}
    const { rows } = await sql<{ n: number; bad: number }>`
      select count(*)::int as n,
        count(*) filter (where json_typeof(payload) <> 'object')::int as bad
      from webhook_message where api = 'cal'`.execute(database.db)
    expect(rows[0]?.n).toBeGreaterThan(0)
    expect(rows[0]?.bad).toBe(0)
  }, 600_000)
})
