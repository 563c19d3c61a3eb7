import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openPostgresDatabase } from '@kcore/db'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { embeddedServeArgs, KcoreProcess, startServer } from './kcore-process.js'
import { caida, createSnapshotMirror, type SnapshotMirror } from './snapshot-mirror.js'
import { createThrowawayPostgres, type ThrowawayPostgres } from './throwaway-postgres.js'
import { waitUntil } from './wait-until.js'

// SIGTERM while requests run (one waiting inside the database for a client that has hung up, one
// refresh waiting on the provider): both finish before the database closes, the refresh answers
// in full, the process exits 0 and logs no error or warning.

const DATABASE_URL = process.env.DATABASE_URL
const ADMIN_TOKEN = 'shutdown-admin-token'

/** Sessions of other processes waiting for a lock in the suite's database. */
async function waitingOnLock(pg: ThrowawayPostgres): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
    where datname = current_database() and wait_event_type = 'Lock'`.execute(pg.database.db)
  return rows[0]?.n ?? 0
}

describe.skipIf(!DATABASE_URL)('kcore serve shutdown', () => {
  let pg: ThrowawayPostgres
  let mirror: SnapshotMirror

  beforeAll(async () => {
    pg = await createThrowawayPostgres(DATABASE_URL as string)
    mirror = await createSnapshotMirror()
    await mirror.offer(caida('19980101.as-rel.txt.bz2'))
  })
  afterAll(async () => {
    await mirror?.close()
    await pg?.drop()
  })

  it('lets running requests finish, then closes and exits 0', async () => {
    const server = await startServer({
      databaseUrl: pg.url,
      providerUrl: mirror.url,
      adminToken: ADMIN_TOKEN,
    })
    try {
      // Hold the calendar table so a list request waits inside the database.
      let unlock = () => {}
      const locker = openPostgresDatabase(pg.url, { maxConnections: 1 })
      let holding: Promise<void> = Promise.resolve()
      await new Promise<void>((locked) => {
        holding = locker.db.transaction().execute(async (trx) => {
          await sql`lock table cal_event in access exclusive mode`.execute(trx)
          locked()
          await new Promise<void>((r) => (unlock = r))
        })
      })
      // A client that hangs up while its request waits: the handler goes on regardless.
      const hangUp = new AbortController()
      const list = fetch(`${server.baseUrl}/cal/events/v1/events`, {
        signal: hangUp.signal,
      }).catch(() => 'hung up')
      const gate = mirror.holdListings()
      const refresh = server.call('/api/refresh', {
        method: 'POST',
        json: { ip_versions: ['ipv4'] },
        token: ADMIN_TOKEN,
      })
      await gate.heldAtOnce(1)
      await waitUntil('the list to wait on the lock', async () => (await waitingOnLock(pg)) > 0)

      server.process.child.kill('SIGTERM')
      await server.process.waitForLog((e) => e.msg === 'shutting down')
      hangUp.abort()
      expect(await list).toBe('hung up')
      // A shutdown that closed the database without waiting would do it now.
      await new Promise((r) => setTimeout(r, 500))
      unlock()
      gate.release()
      await holding
      await locker.close()

      const answer = await refresh
      expect(answer.status, JSON.stringify(answer.body)).toBe(200)
      expect(answer.body.ipv4.snapshots_added).toBe(1)
      expect(await server.process.exited).toEqual({ code: 0, signal: null })
      expect(server.process.output()).not.toMatch(/"level":"(error|warn)"/)
    } finally {
      await server.process.kill('SIGKILL')
    }
  })
})

describe('kcore serve stopped while it starts', () => {
  // A supervisor that gives up on a slow start sends SIGTERM before the port is open (a new
  // embedded database takes seconds to create): the server closes it once open and exits 0,
  // and the directory opens again at once (it is not left locked or half made).
  it('closes the database it was opening and exits 0, never listening', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kcore-start-stop-'))
    const args = (dataDir: string) => [...embeddedServeArgs(dataDir), '--log-level', 'debug']
    const dataDir = join(dir, 'db')
    const first = new KcoreProcess(args(dataDir))
    try {
      await first.waitForLog((e) => e.msg === 'starting')
      first.child.kill('SIGTERM')
      expect(await first.exited, first.output()).toEqual({ code: 0, signal: null })
      const logged = first.output()
      expect(logged).toContain('"msg":"shutting down"')
      expect(logged).not.toContain('"msg":"listening"')
      expect(logged).not.toMatch(/"level":"(error|warn)"/)
      const again = new KcoreProcess(args(dataDir))
      try {
        await again.waitForLog((e) => e.msg === 'listening')
      } finally {
        await again.kill('SIGTERM')
      }
      expect(await again.exited, again.output()).toEqual({ code: 0, signal: null })
    } finally {
      await first.kill('SIGKILL')
      await rm(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
