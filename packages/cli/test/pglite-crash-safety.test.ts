import { mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { openPgliteDatabase } from '@kcore/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { KcoreProcess } from './kcore-process.js'
import { ownsDataDir } from './lock-owner.js'
import { caida } from './snapshot-mirror.js'
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
const QUIET = { KCORE_LOG_LEVEL: 'warn' }

describe('kill -9 in the middle of an ingest on PGlite', () => {
  let base: string
  let dataDir: string
  const outcomes: string[] = []

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'kcore-pglite-crash-'))
    dataDir = join(base, 'data')
    const seed = new KcoreProcess(['ingest', '--data-dir', dataDir, caida(BASE)], QUIET)
    expect(await seed.exited, seed.output()).toEqual({ code: 0, signal: null })
  }, 180_000)
  afterAll(async () => {
    console.log('kill -9 outcomes (ms after owning the directory):', outcomes)
    await rm(base, { recursive: true, force: true })
  })

  async function expectWhole(): Promise<boolean> {
    const database = await openPgliteDatabase(dataDir)
    try {
      const stored = await storedSnapshots(database)
      const before = await expectedFigures(caida(BASE), 'ipv4', '2024-01-01')
      const after = await expectedFigures(caida(IN_FLIGHT), 'ipv4', '2024-08-01')
      expect([[before], [before, after]]).toContainEqual(stored)
      expect(await knownAsnDrift(database)).toBe(0)
      return stored.length === 2
    } finally {
      await database.close()
    }
  }

  // Milliseconds after the ingest owns the directory; the later ones land in the decomposition
  // and the insert on this machine, the last ones usually after the commit.
  it.each([0, 250, 1_000, 2_000, 3_000, 4_500, 6_000, 9_000])(
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
  it.each([0, 100, 300, 800])(
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

  it('then a normal ingest stores the snapshot whole', async () => {
    const ingest = new KcoreProcess(['ingest', '--data-dir', dataDir, caida(IN_FLIGHT)], QUIET)
    expect(await ingest.exited, ingest.output()).toEqual({ code: 0, signal: null })
    expect(await expectWhole()).toBe(true)
  }, 120_000)
})
