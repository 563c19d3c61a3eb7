import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SAMPLE_DATA_DIR } from '@kcore/service'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveFresh as serve } from './kcore-process.js'

// Two first starts at once on one fresh data directory (first-start.slow.test.ts has one).
describe('kcore serve on a contested fresh data directory', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kcore-first-start-contested-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('lets one of two servers started at once seed and serve it', {
    timeout: 120_000,
  }, async () => {
    // The second finds the directory's owner (the first's child, or the first itself once
    // seeded) and stops with the one-line usage error; nothing is seeded twice.
    const seedDir = join(dir, 'one-sample')
    await mkdir(seedDir)
    await copyFile(
      join(SAMPLE_DATA_DIR, '19980101.as-rel.txt.bz2'),
      join(seedDir, '19980101.as-rel.txt.bz2'),
    )
    const dataDir = join(dir, 'contested')
    const env = { KCORE_SEED_DIR: seedDir, KCORE_SEED_NAMES: 'false' }
    const servers = [serve(dataDir, env), serve(dataDir, env)]
    try {
      const outcomes = await Promise.all(
        servers.map((server) =>
          Promise.race([
            server.waitForLog((e) => e.msg === 'listening', 120_000).then(() => 'listening'),
            server.exited.then((exit) => `exit ${exit.code}`),
          ]),
        ),
      )
      expect(outcomes.sort(), servers.map((s) => s.output()).join('\n')).toEqual([
        'exit 2',
        'listening',
      ])
      const refused = servers.find((s) => !s.output().includes('"msg":"listening"'))!
      expect(refused.output()).toMatch(`data directory ${dataDir} is in use by process`)
      const seeded = servers.flatMap((s) => s.output().match(/"msg":"seeded snapshot"/g) ?? [])
      expect(seeded).toHaveLength(1)
    } finally {
      for (const server of servers) await server.kill('SIGTERM')
    }
  })
})
