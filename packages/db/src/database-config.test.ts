import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { DataDirLockedError, lockDataDir } from './data-dir-lock.js'
import { openDatabase } from './open-database.js'

/**
 * What a host writes first: the environment read and passed on as it is, `undefined` where a
 * variable is unset (this file type-checks that call, strict, in `pnpm typecheck`; the consumer
 * check does it from the packed tarballs with `exactOptionalPropertyTypes`).
 */
const fromEnvironment = (env: Record<string, string | undefined>) =>
  openDatabase({ url: env.DATABASE_URL, dataDir: env.KCORE_DATA_DIR })

describe('openDatabase from environment variables', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kcore-config-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('opens the embedded database in KCORE_DATA_DIR when DATABASE_URL is unset or empty', async () => {
    // The directory held here: an open that goes to it is refused by its lock before PGlite
    // starts, which shows where the configuration led without paying for an engine.
    const dataDir = join(dir, 'held')
    const release = await lockDataDir(dataDir)
    try {
      for (const DATABASE_URL of [undefined, '']) {
        const opened = fromEnvironment({ DATABASE_URL, KCORE_DATA_DIR: dataDir })
        await expect(opened).rejects.toBeInstanceOf(DataDirLockedError)
        await expect(opened).rejects.toMatchObject({ holderPid: process.pid })
      }
    } finally {
      await release()
    }
  })

  it.skipIf(!process.env.DATABASE_URL)('opens PostgreSQL when DATABASE_URL is set', async () => {
    const dataDir = join(dir, 'unused')
    const database = await fromEnvironment({
      DATABASE_URL: process.env.DATABASE_URL,
      KCORE_DATA_DIR: dataDir,
    })
    try {
      expect(database.dialect).toBe('postgres')
      expect(await database.ping()).toBe(true)
      // The URL wins: the data directory is not touched.
      expect(existsSync(dataDir)).toBe(false)
    } finally {
      await database.close()
    }
  })
})
