import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SAMPLE_DATA_DIR } from '@kcore/service'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveFresh as serve } from './kcore-process.js'

// `kcore serve` on a fresh data directory seeds it in a child `kcore seed` (the memory the
// seed leaves behind goes with that process), then serves what the child stored.
const gone = (pid: number) => {
  try {
    process.kill(pid, 0)
    return false
  } catch {
    return true
  }
}

describe('kcore serve on a fresh data directory', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kcore-first-start-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('seeds it in a child process, then serves the sample data', { timeout: 120_000 }, async () => {
    // Two small samples (one per IP version) keep it short; the mechanism is the same.
    const seedDir = join(dir, 'samples')
    await mkdir(seedDir)
    const samples = ['19980101.as-rel.txt.bz2', '20220601.as-rel.v6-stable.txt.bz2']
    for (const name of samples) await copyFile(join(SAMPLE_DATA_DIR, name), join(seedDir, name))
    const server = serve(join(dir, 'fresh'), { KCORE_SEED_DIR: seedDir })
    try {
      const seeding = await server.waitForLog((e) => e.msg === 'seeding in a child process')
      expect(seeding.pid).not.toBe(server.pid)
      const listening = await server.waitForLog((e) => e.msg === 'listening', 120_000)
      expect(gone(Number(seeding.pid))).toBe(true)
      const base = `http://127.0.0.1:${new URL(String(listening.url)).port}`
      const snapshots = (await (await fetch(`${base}/api/snapshots`)).json()) as {
        ipv4: { date: string }[]
        ipv6: { date: string }[]
      }
      expect(snapshots.ipv4.map((s) => s.date)).toEqual(['1998-01-01'])
      expect(snapshots.ipv6.map((s) => s.date)).toEqual(['2022-06-01'])
      const asn = (await (await fetch(`${base}/api/asns/13335`)).json()) as { name: string }
      expect(asn.name).toBe('Cloudflare, Inc.')
      const events = await fetch(`${base}/cal/events/v1/events`)
      expect(Number(events.headers.get('x-tec-total'))).toBeGreaterThan(0)
    } finally {
      expect(await server.kill('SIGTERM'), server.output()).toEqual({ code: 0, signal: null })
    }
  })

  it('passes a SIGTERM on to the seeding child and exits 0', { timeout: 60_000 }, async () => {
    const server = serve(join(dir, 'stopped'))
    const seeding = await server.waitForLog((e) => e.msg === 'seeding in a child process')
    expect(await server.kill('SIGTERM'), server.output()).toEqual({ code: 0, signal: null })
    expect(gone(Number(seeding.pid))).toBe(true)
    expect(server.output()).toMatch(/"msg":"shutting down","signal":"SIGTERM"/)
    expect(server.output()).not.toMatch(/"msg":"listening"/)
  })

  it('fails (exit 1) when the child cannot seed', { timeout: 60_000 }, async () => {
    // A file where the directory should be: the child cannot open it (what it cannot seed,
    // it names: service/src/seed-names.test.ts).
    const notADir = join(dir, 'a-file')
    await writeFile(notADir, 'not a directory\n')
    const server = serve(notADir)
    expect(await server.exited).toEqual({ code: 1, signal: null })
    expect(server.output()).toMatch(/kcore: seeding .*a-file failed \(kcore seed exited with 1\)/)
  })
})
