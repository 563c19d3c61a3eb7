import { mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openPgliteDatabase } from '@kcore/db'
import { emptyCluster } from '@kcore/db/testing'
import { afterAll, beforeAll, expect } from 'vitest'
import { KcoreProcess } from './kcore-process.js'
import { ownsDataDir } from './lock-owner.js'
import { caida } from './snapshot-mirror.js'
import { expectedFigures, knownAsnDrift, storedSnapshots } from './stored-snapshots.js'
import { waitUntil } from './wait-until.js'

// Issue 12: kill -9 of `kcore ingest` (and `kcore serve`) in the middle of an ingest into the
// embedded database, at several points (opening, parsing, decomposing, writing, committing):
// the directory opens again, the snapshot stored before is whole, and the one in flight is
// whole or absent. One file per kind of kill point (`pglite-crash-*.slow.test.ts`), each on a
// data directory of its own.

export const BASE = '20240101.as-rel.txt.bz2'
export const IN_FLIGHT = '20240801.as-rel.txt.bz2'
/** What `kcore serve` fetches in the refresh killed in `pglite-crash-serve`. */
export const REFRESHED = '20240201.as-rel.txt.bz2'
export const QUIET = { KCORE_LOG_LEVEL: 'warn' }

/** A suite's data directory: an empty cluster with the 2024-01-01 snapshot (BASE) ingested. */
export interface CrashDir {
  readonly dataDir: string
  /** What each kill did, printed after the suite. */
  readonly outcomes: string[]
  /** `kcore ingest` of the IN_FLIGHT file, once it owns the directory. */
  startIngest(): Promise<KcoreProcess>
  /**
   * Resolves once the table files have grown by 256 KiB past `start` bytes (the 77,000-row
   * insert writes several MiB), or `done()` says the writer has ended anyway.
   */
  untilWriting(what: string, start: number, done: () => boolean): Promise<void>
  /**
   * Whether the file of `date` is stored; fails unless every stored snapshot is whole and
   * the known ASNs match the stored rows.
   */
  expectWhole(date?: string): Promise<boolean>
}

/** Registers the suite's hooks: the directory is seeded before its tests and removed after. */
export function crashDir(): CrashDir {
  let base = ''
  const dir = {
    dataDir: '',
    outcomes: [] as string[],
    async startIngest() {
      const ingest = new KcoreProcess(
        ['ingest', '--data-dir', dir.dataDir, caida(IN_FLIGHT)],
        QUIET,
      )
      await ownsDataDir(dir.dataDir, ingest.pid, ingest.exited)
      return ingest
    },
    async untilWriting(what: string, start: number, done: () => boolean) {
      await waitUntil(
        what,
        async () => done() || (await sizeOf(join(dir.dataDir, 'base'))) > start + 256 * 1024,
        { everyMs: 10, timeoutMs: 120_000 },
      )
    },
    async expectWhole(date = '2024-08-01') {
      const database = await openPgliteDatabase(dir.dataDir)
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
    },
  }
  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'kcore-pglite-crash-'))
    dir.dataDir = await emptyCluster(join(base, 'data'))
    const seed = new KcoreProcess(['ingest', '--data-dir', dir.dataDir, caida(BASE)], QUIET)
    expect(await seed.exited, seed.output()).toEqual({ code: 0, signal: null })
  }, 180_000)
  afterAll(async () => {
    console.log('kill -9 outcomes (ms after owning the directory):', dir.outcomes)
    await rm(base, { recursive: true, force: true })
  })
  return dir
}

/** Bytes of the files under `dir` (0 when it does not exist yet). */
export async function sizeOf(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])
  let total = 0
  for (const entry of entries)
    if (entry.isFile())
      total += (await stat(join(entry.parentPath, entry.name)).catch(() => ({ size: 0 }))).size
  return total
}
