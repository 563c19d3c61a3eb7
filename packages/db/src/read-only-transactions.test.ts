import { connect, createServer, type Server, type Socket } from 'node:net'
import fc from 'fast-check'
import { sql } from 'kysely'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Database } from './database.js'
import { openPostgresDatabase } from './postgres-database.js'
import { pipelineReadOnly, type ReservedQueries } from './read-only-transactions.js'
import { propertyRuns, secondConnection, testDatabases } from './testing.js'

const postgres = testDatabases().find((t) => t.name === 'postgres')
const READ_ONLY = 'start transaction isolation level repeatable read read only'

/** A settable promise, as a postgres.js query is one. */
function deferred() {
  let resolve!: (value: unknown) => void
  let reject!: (reason: unknown) => void
  const promise = new Promise<unknown>((ok, ko) => {
    resolve = ok
    reject = ko
  })
  return { promise, resolve, reject }
}

/** A reserved connection whose answers the test gives, and the texts sent to it. */
function fakeConnection() {
  const sent: { text: string; answer: ReturnType<typeof deferred> }[] = []
  const reserved: ReservedQueries = {
    unsafe(text) {
      const answer = deferred()
      sent.push({ text, answer })
      return answer.promise
    },
    release() {},
  }
  return { sent, reserved }
}

describe('pipelineReadOnly', () => {
  it("fails a read-only transaction's first query with its start's error", async () => {
    const { sent, reserved } = fakeConnection()
    const conn = pipelineReadOnly(reserved)
    await conn.unsafe(READ_ONLY)
    const read = conn.unsafe('select 1')
    expect(sent.map((s) => s.text)).toEqual([READ_ONLY, 'select 1'])
    sent[0]!.answer.reject(new Error('start failed'))
    sent[1]!.answer.resolve([{ n: 1 }])
    await expect(read).rejects.toThrow('start failed')
  })

  it('fails a commit with a failed start when nothing was read', async () => {
    const { sent, reserved } = fakeConnection()
    const conn = pipelineReadOnly(reserved)
    await conn.unsafe(READ_ONLY)
    const commit = conn.unsafe('commit')
    sent[0]!.answer.reject(new Error('start failed'))
    sent[1]!.answer.resolve([])
    await expect(commit).rejects.toThrow('start failed')
  })

  it('answers a read-only commit without waiting for it, and swallows its failure', async () => {
    const { sent, reserved } = fakeConnection()
    const conn = pipelineReadOnly(reserved)
    await conn.unsafe(READ_ONLY)
    const read = conn.unsafe('select 1')
    sent[0]!.answer.resolve([])
    sent[1]!.answer.resolve([{ n: 1 }])
    expect(await read).toEqual([{ n: 1 }])
    const commit = await conn.unsafe('commit')
    expect(commit).toMatchObject({ command: 'COMMIT' })
    sent[2]!.answer.reject(new Error('connection lost'))
    await new Promise((resolve) => setTimeout(resolve, 10))
  })

  it('waits for every statement of a transaction that may write', async () => {
    for (const start of [
      'begin',
      'start transaction isolation level repeatable read',
      'start transaction isolation level serializable read only',
      'start transaction read write',
    ]) {
      const { sent, reserved } = fakeConnection()
      const conn = pipelineReadOnly(reserved)
      const begun = conn.unsafe(start)
      // The connection's own promise: the caller waits for the server's answer.
      expect(begun).toBe(sent[0]!.answer.promise)
      sent[0]!.answer.resolve([])
      await begun
      const commit = conn.unsafe('commit')
      expect(commit).toBe(sent[1]!.answer.promise)
    }
  })
})

/**
 * A TCP proxy to PostgreSQL that holds the server's answers until the client has gone quiet,
 * then hands them over at once: each hand-over is one round trip the client waited for.
 */
async function roundTripCounter(target: URL) {
  let held: { socket: Socket; data: Buffer }[] = []
  let lastTraffic = Date.now()
  let delivering = true
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    const upstream = createConnectionTo(target)
    sockets.add(client).add(upstream)
    client.on('data', (data) => {
      lastTraffic = Date.now()
      upstream.write(data)
    })
    upstream.on('data', (data) => {
      lastTraffic = Date.now()
      if (delivering) client.write(data)
      else held.push({ socket: client, data })
    })
    for (const s of [client, upstream]) s.on('error', () => {})
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  const quiet = async () => {
    do await new Promise((resolve) => setTimeout(resolve, 40))
    while (Date.now() - lastTraffic < 40)
  }
  return {
    url: (() => {
      const url = new URL(target)
      url.host = `127.0.0.1:${port}`
      return url.toString()
    })(),
    /** The round trips `work` waits for: hand-overs of held answers until it settles. */
    async count(work: () => Promise<unknown>): Promise<number> {
      delivering = false
      let settled = false
      const done = work().finally(() => {
        settled = true
      })
      let trips = 0
      while (!settled) {
        await quiet()
        if (settled) break
        if (held.length === 0) continue
        trips++
        const batch = held
        held = []
        for (const { socket, data } of batch) socket.write(data)
      }
      await done
      delivering = true
      for (const { socket, data } of held.splice(0)) socket.write(data)
      return trips
    },
    async close() {
      for (const s of sockets) s.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

function createConnectionTo(target: URL): Socket {
  return connect(Number(target.port || 5432), target.hostname)
}

describe.skipIf(!postgres)('read-only transactions on PostgreSQL', () => {
  const open: { close(): Promise<unknown> }[] = []
  afterEach(async () => {
    for (const d of open.splice(0).reverse()) await d.close()
  })

  async function owner(): Promise<Database> {
    const db = await postgres!.open()
    open.push(db)
    return db
  }

  it('waits one round trip for a read-only snapshot of one query, three for a writer', async () => {
    const db = await owner()
    const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(db.db)
    const target = new URL(process.env.DATABASE_URL!)
    target.pathname = `/${rows[0]!.name}`
    const proxy = await roundTripCounter(target)
    open.push(proxy)
    const pool = await openPostgresDatabase(proxy.url, { maxConnections: 1 })
    open.push(pool)
    await sql`select 1`.execute(pool.db) // connected
    const read = (k: Database['db']) =>
      k
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute((trx) => sql`select 1 as n`.execute(trx))
    const write = (k: Database['db']) =>
      k
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute((trx) => sql`select 1 as n`.execute(trx))
    expect(await proxy.count(() => read(pool.db))).toBe(1)
    expect(await proxy.count(() => write(pool.db))).toBe(3)
    // The deferred commit ran before the next statement: no transaction is left open.
    expect(await proxy.count(() => sql`select 1`.execute(pool.db))).toBe(1)
    const { rows: open2 } = await sql<{ n: number }>`select count(*)::int as n
      from pg_stat_activity where datname = current_database()
      and state like 'idle in transaction%'`.execute(db.db)
    expect(open2[0]!.n).toBe(0)
  })

  it('reads one snapshot per transaction while writers commit beside it', async () => {
    const db = await owner()
    await sql`create table pair (a int not null, b int not null)`.execute(db.db)
    await sql`insert into pair values (0, 0)`.execute(db.db)
    const pool = await secondConnection(db, process.env, { maxConnections: 3 })
    open.push(pool)
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 20 }), async (writes) => {
        let stop = false
        const writer = (async () => {
          for (let i = 0; i < writes && !stop; i++) {
            await pool.db.transaction().execute(async (trx) => {
              await sql`update pair set a = a + 1`.execute(trx)
              await sql`update pair set b = b + 1`.execute(trx)
            })
          }
        })()
        const readers = Array.from({ length: 4 }, async () => {
          for (let i = 0; i < 5; i++) {
            const [a, b] = await pool.db
              .transaction()
              .setIsolationLevel('repeatable read')
              .setAccessMode('read only')
              .execute(async (trx) => [
                (await sql<{ a: number }>`select a from pair`.execute(trx)).rows[0]!.a,
                (await sql<{ b: number }>`select b from pair`.execute(trx)).rows[0]!.b,
              ])
            expect(a).toBe(b)
          }
        })
        await Promise.all(readers).finally(() => {
          stop = true
        })
        await writer
      }),
      { numRuns: propertyRuns(20, 5) },
    )
    // Each read-only commit was sent, not waited for: it lands a round trip later, so a look
    // right after the last one can still catch its session idle in transaction.
    await vi.waitFor(
      async () => {
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where datname = current_database() and state like 'idle in transaction%'`.execute(db.db)
        expect(rows[0]!.n).toBe(0)
      },
      { timeout: 10_000, interval: 20 },
    )
  })

  it('streams rows in a read-only transaction', async () => {
    const db = await owner()
    const rows: number[] = []
    await db.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute(async (trx) => {
        for await (const row of trx
          .selectFrom(sql`generate_series(1, 250)`.as('g'))
          .select(sql<number>`g`.as('n'))
          .stream(100)) {
          rows.push(row.n)
        }
      })
    expect(rows).toEqual(Array.from({ length: 250 }, (_, i) => i + 1))
  })
})
