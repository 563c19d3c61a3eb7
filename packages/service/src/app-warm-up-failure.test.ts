import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it, vi } from 'vitest'
import { createApp, openStores } from './app.js'
import { loadConfig } from './config.js'
import { createLogger } from './logger.js'

const closed = { scheduler: 0 }
vi.mock('@kcore/store', async (importOriginal) => {
  const store = await importOriginal<typeof import('@kcore/store')>()
  return {
    ...store,
    createScheduler: (...args: Parameters<typeof store.createScheduler>) => {
      const scheduler = store.createScheduler(...args)
      return {
        ...scheduler,
        close: async () => {
          closed.scheduler++
          await scheduler.close()
        },
      }
    },
  }
})
vi.mock('./warm-up.js', () => ({
  warmUp: async () => {
    throw new Error('warm-up failed')
  },
}))

// A start whose warm-up fails (a database that breaks right after its migrations) fails with
// that error and leaves nothing running: the scheduler is closed, and the data directory opens
// again at once.
it('fails the start with the warm-up’s error and closes what it opened', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kcore-app-warm-fail-'))
  const config = loadConfig({ KCORE_DATA_DIR: dir, KCORE_SEED: 'false' })
  try {
    await expect(createApp(config, createLogger('silent'))).rejects.toThrow('warm-up failed')
    expect(closed.scheduler).toBe(1)
    const again = await openStores(config)
    await again.database.close()
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})
