import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { emptyCluster } from '@kcore/db/testing'
import type { Handler } from '@kcore/http-adapter'
import { expect, it } from 'vitest'
import { assembleApp, openStores } from './app.js'
import { loadConfig } from './config.js'
import { createLogger } from './logger.js'

// A start whose warm-up fails (a database that breaks right after its migrations) fails with
// that error and leaves nothing running: the scheduler it made is closed (no next run), and
// the data directory opens again at once.
it('fails the start with the warm-up’s error and closes what it opened', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kcore-app-warm-fail-'))
  const config = loadConfig({
    KCORE_DATA_DIR: await emptyCluster(join(dir, 'db')),
    KCORE_SEED: 'false',
    KCORE_SCHEDULER_ENABLED: 'true',
  })
  let handler: Handler | undefined
  try {
    const start = assembleApp(config, createLogger('silent'), async (warming) => {
      handler = warming
      const status = await warming(new Request('http://localhost/api/scheduler/status'))
      expect((await status.json()).next_run).not.toBeNull()
      throw new Error('warm-up failed')
    })
    await expect(start).rejects.toThrow('warm-up failed')
    const status = await handler!(new Request('http://localhost/api/scheduler/status'))
    expect((await status.json()).next_run).toBeNull()
    const again = await openStores(config)
    await again.database.close()
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})
