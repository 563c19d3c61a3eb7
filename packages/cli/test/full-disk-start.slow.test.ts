import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CliIo, main } from '../src/program.js'

// A small tmpfs is the only honest full disk: mounting one needs root (CI runs as root).
const mountError =
  process.platform !== 'linux'
    ? 'tmpfs mounts need Linux'
    : process.getuid?.() !== 0
      ? 'mounting a tmpfs needs root'
      : undefined
if (mountError) console.warn(`full-disk start tests skipped: ${mountError}`)

describe.skipIf(mountError !== undefined)('kcore starting on a full disk', () => {
  let mountPoint: string
  beforeAll(() => {
    mountPoint = mkdtempSync(join(tmpdir(), 'kcore-full-start-'))
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mountPoint])
  })
  afterAll(() => {
    execFileSync('umount', ['-l', mountPoint])
    rmSync(mountPoint, { recursive: true, force: true })
  })

  // All but `freeKb` of the disk taken: none (the lock file cannot be written), and some (PGlite's
  // initdb runs out midway, where Emscripten throws a plain object).
  it.each([0, 1024, 4096])(
    'with %i KB free: one line naming the directory, exit 1',
    async (freeKb) => {
      const filler = join(mountPoint, 'filler')
      const { bavail, bsize } = statfsSync(mountPoint)
      writeFileSync(filler, Buffer.alloc(Math.max(0, bavail * bsize - freeKb * 1024)))
      const dataDir = join(mountPoint, `data-${freeKb}`)
      let stderr = ''
      const io: CliIo = {
        env: { KCORE_LOG_LEVEL: 'silent' },
        stdout: { isTTY: false, write: () => true },
        stderr: { write: (s: string) => (stderr += s) },
      }
      try {
        const code = await main(['serve', '--data-dir', dataDir, '--port', '0', '--no-seed'], io)
        expect(code).toBe(1)
        expect(stderr).toBe(
          `kcore: cannot open the database in ${dataDir}: no space left on device\n`,
        )
      } finally {
        rmSync(filler)
        rmSync(dataDir, { recursive: true, force: true })
      }
    },
    60_000,
  )
})
