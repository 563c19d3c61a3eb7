import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Database,
  DatabaseUnavailableError,
  openDatabase,
  StorageFullError,
} from '../src/index.js'

// A small tmpfs is the only honest full disk: mounting one needs root (CI runs as root).
const mountError = (() => {
  if (process.platform !== 'linux') return 'tmpfs mounts need Linux'
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root'
  return undefined
})()
if (mountError) console.warn(`full-disk tests skipped: ${mountError}`)

/** Incompressible rows, about 1.6 MB per statement (TOAST would shrink repeated text). */
const FILL = sql`insert into filling (v)
  select string_agg(md5(random()::text), '') from generate_series(1, 100), generate_series(1, 500) h
  group by h`

describe.skipIf(mountError !== undefined)('PGlite on a full disk', () => {
  let mountPoint: string
  const logs: { level: string; msg: string; fields?: Record<string, unknown> }[] = []
  const log = {
    info: (msg: string, fields?: Record<string, unknown>) =>
      logs.push({ level: 'info', msg, fields }),
    warn: (msg: string, fields?: Record<string, unknown>) =>
      logs.push({ level: 'warn', msg, fields }),
    error: (msg: string, fields?: Record<string, unknown>) =>
      logs.push({ level: 'error', msg, fields }),
  }

  beforeAll(() => {
    mountPoint = mkdtempSync(join(tmpdir(), 'kcore-full-disk-'))
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', mountPoint])
  })
  afterAll(() => {
    execFileSync('umount', ['-l', mountPoint])
    rmSync(mountPoint, { recursive: true, force: true })
  })

  const count = async (database: Database) =>
    Number(
      (await sql<{ n: number }>`select count(*) as n from filling`.execute(database.db)).rows[0]?.n,
    )

  it('refuses writes cleanly while full, serves reads, and writes again once space is freed', async () => {
    const dataDir = join(mountPoint, 'data')
    const database = await openDatabase({ dataDir, log })
    try {
      await sql`create table filling (id serial primary key, v text)`.execute(database.db)
      // Leave room for a few statements, less than a new 16 MB WAL segment needs: the disk
      // fills both ways PostgreSQL meets it (a data file that cannot grow: ERROR; a WAL
      // segment that cannot be written: PANIC, which ends PGlite's engine).
      const free = () => statfsSync(mountPoint).bavail * statfsSync(mountPoint).bsize
      const filler = join(mountPoint, 'filler')
      writeFileSync(filler, Buffer.alloc(Math.max(0, free() - 10 * 1024 * 1024)))

      let stored = 0
      let refused = 0
      for (let attempt = 0; attempt < 40 && refused < 4; attempt++) {
        try {
          await database.db.transaction().execute((trx) => FILL.execute(trx))
          stored++
        } catch (error) {
          // Clean: the typed error, no engine internals in its message.
          expect(error).toBeInstanceOf(StorageFullError)
          expect((error as Error).message).not.toMatch(/base\/|pg_wal|\.c\b/)
          refused++
        }
        // Reads go on whatever the last write met (a restarted engine answers too).
        expect(await count(database)).toBe(stored * 500)
      }
      expect(refused).toBe(4)
      expect(stored).toBeGreaterThan(0)
      // Each refusal was logged with the engine's own text.
      const full = logs.filter((l) => l.msg === 'database disk full')
      expect(full.length).toBe(4)
      for (const entry of full)
        expect(String(entry.fields?.error)).toMatch(/No space left on device/)
      expect(await database.ping()).toBe(true)

      // Space comes back: writes work again without reopening the database.
      rmSync(filler)
      execFileSync('mount', ['-o', 'remount,size=160m', mountPoint])
      await database.db.transaction().execute((trx) => FILL.execute(trx))
      expect(await count(database)).toBe((stored + 1) * 500)
    } finally {
      await database.close()
    }
    // What was acknowledged is there after a clean reopen.
    const again = await openDatabase({ dataDir })
    try {
      expect(await count(again)).toBeGreaterThan(0)
    } finally {
      await again.close()
    }
  }, 120_000)

  it('restarts the engine after a PANIC and serves again once space is freed', async () => {
    const dataDir = join(mountPoint, 'panic')
    const database = await openDatabase({ dataDir, log })
    logs.length = 0
    const filler = join(mountPoint, 'filler-panic')
    try {
      await sql`create table filling (id serial primary key, v text)`.execute(database.db)
      await database.db.transaction().execute((trx) => FILL.execute(trx))
      const { bavail, bsize } = statfsSync(mountPoint)
      writeFileSync(filler, Buffer.alloc(bavail * bsize))
      // WAL that cannot be written: PostgreSQL PANICs, PGlite's runtime aborts.
      let failure: unknown
      for (let i = 0; i < 60 && !failure; i++) {
        await sql`select pg_logical_emit_message(false, 'fill', repeat(md5(random()::text), 30000), true)`
          .execute(database.db)
          .catch((error: unknown) => {
            failure = error
          })
      }
      expect(failure).toBeInstanceOf(StorageFullError)
      expect(logs).toContainEqual(
        expect.objectContaining({
          msg: 'database disk full',
          fields: expect.objectContaining({ restarting: true }),
        }),
      )
      // Until the engine is back, reads fail as unavailable (never hang, never another error).
      const read = () => count(database).catch((error: unknown) => error)
      const whileFull = await read()
      if (typeof whileFull !== 'number') expect(whileFull).toBeInstanceOf(DatabaseUnavailableError)

      rmSync(filler)
      let after: unknown
      const deadline = Date.now() + 10_000
      do {
        after = await read()
        if (typeof after !== 'number') await new Promise((r) => setTimeout(r, 200))
      } while (typeof after !== 'number' && Date.now() < deadline)
      expect(after).toBe(500)
      await database.db.transaction().execute((trx) => FILL.execute(trx))
      expect(await count(database)).toBe(1000)
      expect(logs.map((l) => l.msg)).toContain('embedded database restarted')
    } finally {
      rmSync(filler, { force: true })
      await database.close()
    }
  }, 120_000)

  it('opening a directory on a full disk fails with one line naming it', async () => {
    const filler = join(mountPoint, 'filler-all')
    writeFileSync(
      filler,
      Buffer.alloc(statfsSync(mountPoint).bavail * statfsSync(mountPoint).bsize),
    )
    const dataDir = join(mountPoint, 'fresh')
    try {
      const opened = openDatabase({ dataDir })
      await expect(opened).rejects.toThrow(`${dataDir}: no space left on device`)
      await expect(opened).rejects.toThrow(/^[^\n]+$/)
    } finally {
      rmSync(filler)
    }
  }, 60_000)
})
