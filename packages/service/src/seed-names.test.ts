import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { emptyCluster } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type App, createApp } from './app.js'
import { loadConfig } from './config.js'
import { createLogger } from './logger.js'

// A fresh embedded service names ASes with no network: the shipped slice of the real
// @ip-location-db/asn files is imported on first start (no sample snapshots here, so the
// answer is the registry row with both versions null), and only when asked to.
describe('first start: AS names from the shipped slice', () => {
  let dir: string
  const apps: App[] = []
  const start = async (name: string, env: Record<string, string> = {}) => {
    const config = loadConfig({
      KCORE_DATA_DIR: await emptyCluster(join(dir, name)),
      KCORE_SEED_DIR: join(dir, 'no-snapshots'),
      KCORE_SCHEDULER_ENABLED: 'false',
      ...env,
    })
    const app = await createApp(config, createLogger('silent'))
    apps.push(app)
    const get = async (path: string) => {
      const res = await app.handler(new Request(`http://localhost${path}`))
      return { status: res.status, body: await res.json() }
    }
    return { app, get }
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kcore-seed-names-'))
  })
  afterAll(async () => {
    for (const app of apps) await app.close().catch(() => {})
    await rm(dir, { recursive: true, force: true })
  })

  it('answers AS 13335 with its real name, address space and the release it came from', async () => {
    const { get } = await start('fresh')
    const res = await get('/api/asns/13335')
    expect(res.status).toBe(200)
    expect(res.body.name).toBe('Cloudflare, Inc.')
    expect(res.body.registry).toEqual({
      source: '@ip-location-db/asn@2.3.2026061719 (slice)',
      date: '2026-06-17',
    })
    expect(res.body.address_space.ipv4.addresses).toBeGreaterThan(1_000_000)
    expect(res.body.address_space.ipv6.slash48s).toBeGreaterThan(0)
    expect((await get('/api/asns/174')).body.name).toBe('Cogent Communications')
    expect((await get('/api/asns/3356')).body.name).toBe('Level 3 Communications, Inc.')
    const search = await get('/api/asns?search=cloudflare&limit=5')
    expect(search.status).toBe(200)
    expect(JSON.stringify(search.body)).toContain('13335')
  })

  it('imports nothing when KCORE_SEED_NAMES is false', async () => {
    const { get } = await start('skipped', { KCORE_SEED_NAMES: 'false' })
    expect((await get('/api/asns/13335')).status).toBe(404)
  })

  it('stops the start naming a sample it cannot ingest', async () => {
    const seedDir = join(dir, 'bad-samples')
    await mkdir(seedDir)
    const file = join(seedDir, '20240101.as-rel.txt')
    await writeFile(file, 'not a CAIDA line\n')
    await expect(start('bad', { KCORE_SEED_DIR: seedDir })).rejects.toThrow(
      `seeding ${file}: line 1: expected`,
    )
  })
})
