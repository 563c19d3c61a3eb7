import { mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { openPgliteDatabase } from '@kcore/db'
import { emptyCluster, rotatingSample } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { KcoreProcess } from './kcore-process.js'
import { ownsDataDir } from './lock-owner.js'
import { caida, createSnapshotMirror } from './snapshot-mirror.js'
import { expectedFigures, knownAsnDrift, storedSnapshots } from './stored-snapshots.js'
import { waitUntil } from './wait-until.js'

/** Bytes of the files under `dir` (0 when it does not exist yet). */
async function sizeOf(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])
  let total = 0
  for (const entry of entries)
    if (entry.isFile())
      total += (await stat(join(entry.parentPath, entry.name)).catch(() => ({ size: 0 }))).size
  return total
}

// Issue 12: kill -9 of `kcore ingest` in the middle of an ingest into the embedded database,
// at several points (opening, parsing, decomposing, writing, committing): the directory opens
// again, the snapshot stored before is whole, and the one in flight is whole or absent.

const BASE = '20240101.as-rel.txt.bz2'
const IN_FLIGHT = '20240801.as-rel.txt.bz2'
/** What `kcore serve` fetches in the refresh killed below. */
const REFRESHED = '20240201.as-rel.txt.bz2'
const QUIET = { KCORE_LOG_LEVEL: 'warn' }

describe('kill -9 in the middle of an ingest on PGlite', () => {
  let base: string
  let dataDir: string
  const outcomes: string[] = []

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'kcore-pglite-crash-'))
    dataDir = await emptyCluster(join(base, 'data'))
    const seed = new KcoreProcess(['ingest', '--data-dir', dataDir, caida(BASE)], QUIET)
    expect(await seed.exited, seed.output()).toEqual({ code: 0, signal: null })
  }, 180_000)
  afterAll(async () => {
    console.log('kill -9 outcomes (ms after owning the directory):', outcomes)
    await rm(base, { recursive: true, force: true })
  })

  /** Whether the file of `date` is stored; fails unless every stored snapshot is whole. */
  async function expectWhole(date = '2024-08-01'): Promise<boolean> {
    const database = await openPgliteDatabase(dataDir)
    try {
      const stored = await storedSnapshots(database)
      const files: Record<string, string> = {
        '2024-01-01': BASE,
        '2024-02-01': REFRESHED,
        '2024-08-01': IN_FLIGHT,
      }
      expect(stored.map((s) => s.date)).toContain('2024-01-01')
      for (const snapshot of stored) {
        const file = files[snapshot.date]
        expect(file, `unexpected ${JSON.stringify(snapshot)}`).toBeDefined()
        expect(snapshot).toEqual(await expectedFigures(caida(file!), 'ipv4', snapshot.date))
      }
      expect(await knownAsnDrift(database)).toBe(0)
      return stored.some((s) => s.date === date)
    } finally {
      await database.close()
    }
  }

  // Milliseconds after the ingest owns the directory; the later ones land in the decomposition
  // and the insert on this machine, the last ones usually after the commit. Each kill point is
  // its own process run: `pnpm test:full` takes every one, other runs a rotating few.
  it.each(
    rotatingSample('ingest kill points', [0, 250, 1_000, 2_000, 3_000, 4_500, 6_000, 9_000], 1),
  )(
    'killed %i ms in: reopens with whole snapshots only',
    async (ms) => {
      const ingest = new KcoreProcess(['ingest', '--data-dir', dataDir, caida(IN_FLIGHT)], QUIET)
      await ownsDataDir(dataDir, ingest.pid, ingest.exited)
      await delay(ms)
      const exit = await ingest.kill('SIGKILL')
      const stored = await expectWhole()
      outcomes.push(
        `${ms}: ${exit.signal ?? `exit ${exit.code}`}, in-flight ${stored ? 'stored' : 'absent'}`,
      )
    },
    120_000,
  )

  // Killed while the shell rows are being written: once the table files have grown by 256 KiB
  // (the 77,000-row insert writes several MiB), and a little later.
  it.each(rotatingSample('ingest kill points while writing', [0, 100, 300, 800], 1))(
    'killed %i ms into writing the rows: reopens with whole snapshots only',
    async (ms) => {
      const ingest = new KcoreProcess(['ingest', '--data-dir', dataDir, caida(IN_FLIGHT)], QUIET)
      await ownsDataDir(dataDir, ingest.pid, ingest.exited)
      const start = await sizeOf(join(dataDir, 'base'))
      let gone = false
      void ingest.exited.then(() => {
        gone = true
      })
      await waitUntil(
        'the ingest to write its rows',
        async () => gone || (await sizeOf(join(dataDir, 'base'))) > start + 256 * 1024,
        { everyMs: 10, timeoutMs: 120_000 },
      )
      await delay(ms)
      const exit = await ingest.kill('SIGKILL')
      const stored = await expectWhole()
      outcomes.push(
        `writing+${ms}: ${exit.signal ?? `exit ${exit.code}`}, in-flight ${stored ? 'stored' : 'absent'}`,
      )
    },
    180_000,
  )

  // `kcore serve` killed while a refresh writes its rows (file:// provider).
  it.each(rotatingSample('serve kill points while writing', [0, 300], 1))(
    'serve killed %i ms into a refresh writing its rows: reopens whole',
    async (ms) => {
      const mirror = await createSnapshotMirror()
      try {
        await mirror.offer(caida(REFRESHED))
        const serve = new KcoreProcess(
          ['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--no-seed'],
          { KCORE_SCHEDULER_ENABLED: 'false', KCORE_PROVIDER_URL: mirror.fileUrl },
        )
        const listening = await serve.waitForLog((e) => e.msg === 'listening', 120_000)
        const url = `http://127.0.0.1:${new URL(String(listening.url)).port}/api/refresh`
        const start = await sizeOf(join(dataDir, 'base'))
        const answer = fetch(url, { method: 'POST' }).then(
          (r) => r.json(),
          (e: unknown) => e,
        )
        let gone = false
        void serve.exited.then(() => {
          gone = true
        })
        // (or the refresh answered: the date was stored by the previous case)
        void answer.then(() => {
          gone = true
        })
        await waitUntil(
          'the refresh to write its rows',
          async () => gone || (await sizeOf(join(dataDir, 'base'))) > start + 256 * 1024,
          { everyMs: 10, timeoutMs: 120_000 },
        )
        await delay(ms)
        const exit = await serve.kill('SIGKILL')
        await answer
        const stored = await expectWhole('2024-02-01')
        outcomes.push(
          `serve writing+${ms}: ${exit.signal ?? `exit ${exit.code}`}, refreshed ${stored ? 'stored' : 'absent'}`,
        )
      } finally {
        await mirror.close()
      }
    },
    180_000,
  )

  it('then a normal ingest stores the snapshot whole', async () => {
    const ingest = new KcoreProcess(['ingest', '--data-dir', dataDir, caida(IN_FLIGHT)], QUIET)
    expect(await ingest.exited, ingest.output()).toEqual({ code: 0, signal: null })
    expect(await expectWhole()).toBe(true)
  }, 120_000)
})
