import { readFile, rename, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { sql } from 'kysely'
import postgres from 'postgres'
import type { Database } from './database.js'
import { openPgliteDatabase } from './open-pglite-database.js'
import { openPostgresDatabase, type PostgresOptions } from './postgres-database.js'

/** One database engine a test suite runs against. */
export interface TestDatabase {
  readonly name: 'pglite' | 'postgres'
  /** A fresh, empty database; closing it also drops it. */
  open(): Promise<Database>
}

/**
 * The engines to test against: in-memory PGlite always, and real PostgreSQL when
 * `DATABASE_URL` is set. Each `open()` on PostgreSQL creates a throwaway database, so test
 * files running in parallel never see each other's tables.
 *
 * @example
 * describe.each(testDatabases())('store on $name', ({ open }) => { ... })
 */
export function testDatabases(
  env: Record<string, string | undefined> = process.env,
): TestDatabase[] {
  const list: TestDatabase[] = [{ name: 'pglite', open: openTemplatePglite }]
  const url = env.DATABASE_URL
  if (url) list.push({ name: 'postgres', open: () => openThrowawayPostgres(url) })
  return list
}

async function openThrowawayPostgres(baseUrl: string): Promise<Database> {
  const name = `kcore_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`create database "${name}"`)
  } finally {
    await admin.end()
  }
  const url = new URL(baseUrl)
  url.pathname = `/${name}`
  const database = openPostgresDatabase(url.toString())
  return {
    ...database,
    async close() {
      await database.close()
      const dropper = postgres(baseUrl, { max: 1, onnotice: () => {} })
      try {
        await dropper.unsafe(`drop database if exists "${name}" with (force)`)
      } finally {
        await dropper.end()
      }
    },
  }
}

/**
 * A fresh in-memory PGlite started from a dumped empty cluster instead of running `initdb`:
 * about 0.5 s instead of 2–3 s per database, which is most of what a PGlite test pays.
 */
async function openTemplatePglite(): Promise<Database> {
  const template = await pgliteTemplate()
  try {
    return await openPgliteDatabase(undefined, { loadDataDir: template })
  } catch {
    // An unreadable template (say, a disk that filled up while it was written): start empty.
    templateBlob = undefined
    return openPgliteDatabase()
  }
}

let templateBlob: Promise<Blob> | undefined

/**
 * The dump of an empty PGlite cluster, kept in the system's temporary directory per PGlite
 * version, so every test process (Vitest forks one per file) reads it instead of making it.
 * Written to a unique name and renamed, so concurrent writers never leave half a file.
 */
function pgliteTemplate(): Promise<Blob> {
  templateBlob ??= (async () => {
    const file = join(tmpdir(), `kcore-pglite-template-${pgliteVersion()}.tar`)
    try {
      return new Blob([await readFile(file)])
    } catch {
      const pglite = await PGlite.create()
      try {
        const dump = await pglite.dumpDataDir('none')
        const partial = `${file}.${process.pid}.${Date.now()}`
        await writeFile(partial, new Uint8Array(await dump.arrayBuffer()))
        await rename(partial, file)
        return dump
      } finally {
        await pglite.close()
      }
    }
  })()
  return templateBlob
}

/** The installed PGlite's version: a template only fits the PGlite that wrote it. */
function pgliteVersion(): string {
  const require = createRequire(import.meta.url)
  let dir = dirname(require.resolve('@electric-sql/pglite'))
  for (;;) {
    try {
      const pkg = require(join(dir, 'package.json')) as { name?: string; version?: string }
      if (pkg.name === '@electric-sql/pglite' && pkg.version) return pkg.version
    } catch {}
    const parent = dirname(dir)
    if (parent === dir) return 'unknown'
    dir = parent
  }
}

/**
 * How many cases a property runs: `full` in `pnpm test:full` (KCORE_TEST_LEVEL=full), a quarter
 * of it (at least `min`) otherwise, so the default suite and CI stay within their time while the
 * full-size run keeps every case. The cases differ on every run (fast-check's seed rotates, and
 * a failure prints the seed that repeats it).
 */
export function propertyRuns(full: number, min = 10): number {
  return process.env.KCORE_TEST_LEVEL === 'full' ? full : Math.max(min, Math.ceil(full / 4))
}

/**
 * A second, independent connection pool to the same database, as another process would have:
 * on PostgreSQL a new pool to the database `database` is connected to (found from
 * `DATABASE_URL`'s server), opened with `options`; PGlite has one connection per process, so
 * there it is the same database (its `close()` leaves it open).
 */
export async function secondConnection(
  database: Database,
  env: Record<string, string | undefined> = process.env,
  options: PostgresOptions = {},
): Promise<Database> {
  if (database.dialect === 'pglite') return { ...database, close: async () => {} }
  const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(
    database.db,
  )
  const url = new URL(env.DATABASE_URL ?? '')
  url.pathname = `/${rows[0]!.name}`
  return openPostgresDatabase(url.toString(), options)
}
