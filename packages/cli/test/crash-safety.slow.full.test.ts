import { type IpVersion, parseSnapshotFileName } from '@kcore/engine'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backendAlive, backendsRunning, otherSessions } from './backend-activity.js'
import { ingestWrites, installIngestAudit } from './ingest-audit.js'
import { KcoreProcess, type KcoreServer, startServer } from './kcore-process.js'
import { advisoryLockHolders, refreshLockIsFree } from './refresh-lock.js'
import { caida, createSnapshotMirror, type SnapshotMirror } from './snapshot-mirror.js'
import { expectedFigures, knownAsnDrift, storedSnapshots } from './stored-snapshots.js'
import { createThrowawayPostgres, type ThrowawayPostgres } from './throwaway-postgres.js'
import { holdKnownAsnsRow } from './uncommitted-row.js'
import { waitUntil } from './wait-until.js'

// Issue 6, item 4: kill -9 a process in the middle of an ingest, restart, and the store holds
// only whole snapshots, the refresh lock is free, and a new refresh completes.

const DATABASE_URL = process.env.DATABASE_URL
const ADMIN_TOKEN = 'crash-safety-admin-token'
const SMALL = '19980101.as-rel.txt.bz2'
/** The largest serial-1 files of the shared folder (~75,000 ASes, ~500,000 links each). */
const BIG = ['20230101.as-rel.txt.bz2', '20240101.as-rel.txt.bz2', '20240201.as-rel.txt.bz2']
const BIG_FOR_INGEST = '20240801.as-rel.txt.bz2'

/** Date and IP version of a CAIDA file name. */
function infoOf(name: string): { path: string; ipVersion: IpVersion; date: string } {
  const info = parseSnapshotFileName(name)
  if (!info) throw new Error(`not a CAIDA snapshot name: ${name}`)
  return { path: caida(name), ipVersion: info.ipVersion, date: info.date }
}

/** What the store must hold: these files, each whole. */
function wholeSnapshots(names: string[]) {
  return Promise.all(
    names
      .map(infoOf)
      .sort((a, b) => (a.date < b.date ? -1 : 1))
      .map((f) => expectedFigures(f.path, f.ipVersion, f.date)),
  )
}

describe.skipIf(!DATABASE_URL)('kill -9 in the middle of an ingest', () => {
  let pg: ThrowawayPostgres
  let mirror: SnapshotMirror
  const started: KcoreServer[] = []

  beforeAll(async () => {
    pg = await createThrowawayPostgres(DATABASE_URL!)
    mirror = await createSnapshotMirror()
    const migrate = new KcoreProcess(['migrate', '--database-url', pg.url])
    expect(await migrate.exited, migrate.output()).toEqual({ code: 0, signal: null })
    await installIngestAudit(pg.database)
  })
  afterAll(async () => {
    await Promise.all(started.map((s) => s.process.kill('SIGKILL')))
    await mirror?.close()
    await pg?.drop()
  })

  async function serve(): Promise<KcoreServer> {
    // The local folder as a file:// provider (the other suite covers http).
    const server = await startServer({
      databaseUrl: pg.url,
      providerUrl: mirror.fileUrl,
      adminToken: ADMIN_TOKEN,
    })
    started.push(server)
    return server
  }

  const refresh = (server: KcoreServer) =>
    server.call('/api/refresh', {
      method: 'POST',
      json: { ip_versions: ['ipv4'] },
      token: ADMIN_TOKEN,
    })

  it('a refresh killed inside its transaction stores nothing of that snapshot, frees the lock, and a restarted refresh completes', async () => {
    const first = await serve()
    await mirror.offer(caida(SMALL))
    expect((await refresh(first)).body.ipv4).toMatchObject({
      processed: true,
      processed_dates: ['1998-01-01'],
    })

    for (const name of BIG) await mirror.offer(caida(name))
    // Pin the first big ingest inside its transaction: its known-ASN statement (after the
    // shell blob is written) waits on this uncommitted lock.
    let second: KcoreServer | undefined
    const pin = await holdKnownAsnsRow(pg.url, 'ipv4')
    try {
      // Settles as the process dies: the connection drops without an answer.
      const killed = refresh(first).catch((error: unknown) => error)
      const [victim] = await waitUntil('the ingest to reach its last statement', async () => {
        const pids = await backendsRunning(pg.database, 'insert into "kcore_known_asns"', {
          waitingOnLock: true,
        })
        return pids.length > 0 && pids
      })
      expect(await first.process.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' })
      expect(await killed).toBeInstanceOf(Error)

      // The session holding the refresh lock sat idle: PostgreSQL sees the closed socket at
      // once and drops the lock, although the dead process's transaction still waits.
      await waitUntil('the refresh lock to be released', async () => {
        return (await advisoryLockHolders(pg.database)) === 0
      })
      expect(await refreshLockIsFree(pg.database)).toBe(true)
      expect(await backendAlive(pg.database, victim!)).toBe(true)

      // A restarted process refreshes at once; storing the same date, it queues behind the
      // orphaned transaction (its snapshot row is locked) instead of mixing rows with it.
      second = await serve()
      const completed = refresh(second)
      await waitUntil('the new refresh to wait on the orphaned transaction', async () => {
        const pids = await backendsRunning(pg.database, 'insert into "kcore_snapshot"', {
          waitingOnLock: true,
        })
        return pids.length > 0
      })
      await pin.release()
      // The orphan finishes its statement, finds its client gone and rolls back.
      await waitUntil('the orphaned transaction to end', async () => {
        return !(await backendAlive(pg.database, victim!))
      })

      const answer = await completed
      expect(answer.status).toBe(200)
      expect(answer.body.ipv4).toMatchObject({
        processed: true,
        processed_dates: BIG.map((n) => infoOf(n).date),
        latest_date: infoOf(BIG[2]!).date,
      })
    } finally {
      await pin.release()
    }

    expect(await storedSnapshots(pg.database)).toEqual(await wholeSnapshots([SMALL, ...BIG]))
    expect(await knownAsnDrift(pg.database)).toBe(0)
    // Committed writes only: the killed ingest left none, each date went in exactly once.
    expect((await ingestWrites(pg.database)).map((w) => `${w.date} ${w.op}`)).toEqual(
      [SMALL, ...BIG].map((n) => `${infoOf(n).date} INSERT`),
    )
    expect(await refreshLockIsFree(pg.database)).toBe(true)
    expect(await second!.stop()).toEqual({ code: 0, signal: null })
  }, 120_000)

  it('`kcore ingest` killed inside its transaction, its shell blob written, leaves no partial snapshot', async () => {
    const before = await storedSnapshots(pg.database)
    const ingest = () =>
      new KcoreProcess([
        'ingest',
        '--database-url',
        pg.url,
        '--log-level',
        'warn',
        caida(BIG_FOR_INGEST),
      ])

    // The blob insert is one short statement, too quick to catch by polling; the known-ASN
    // upsert that follows it in the same transaction waits on this held row instead.
    const held = await holdKnownAsnsRow(pg.url, infoOf(BIG_FOR_INGEST).ipVersion)
    const doomed = ingest()
    try {
      await waitUntil(
        'the ingest to wait inside its transaction',
        async () =>
          (
            await backendsRunning(pg.database, 'insert into "kcore_known_asns"', {
              waitingOnLock: true,
            })
          ).length > 0,
        { everyMs: 20 },
      )
      expect(await doomed.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' })
    } finally {
      await held.release()
    }
    // Each of its sessions ends once PostgreSQL finds the client gone (a running statement
    // first finishes), rolling back whatever was not committed.
    await waitUntil('the killed ingest to leave the database', async () => {
      return (await otherSessions(pg.database)) === 0
    })

    // Killed before its commit was sent: nothing of it stays.
    const after = await storedSnapshots(pg.database)
    const withIt = [...before, ...(await wholeSnapshots([BIG_FOR_INGEST]))].sort((a, b) =>
      a.date < b.date ? -1 : 1,
    )
    expect(after).toEqual(before)
    expect(await knownAsnDrift(pg.database)).toBe(0)

    const rerun = ingest()
    expect(await rerun.exited, rerun.output()).toEqual({ code: 0, signal: null })
    expect(await storedSnapshots(pg.database)).toEqual(withIt)
  }, 120_000)
})
