import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { rotatingSample } from '@kcore/db/testing'
import { describe, it } from 'vitest'
import { KcoreProcess } from './kcore-process.js'
import { crashDir, REFRESHED, sizeOf } from './pglite-crash.js'
import { caida, createSnapshotMirror } from './snapshot-mirror.js'

// kill -9 of `kcore serve` while a refresh writes its rows (`pglite-crash.ts`).
describe('kill -9 of a serve refreshing on PGlite', () => {
  const crash = crashDir()

  // `kcore serve` killed while a refresh writes its rows (file:// provider).
  it.each(rotatingSample('serve kill points while writing', [0, 300], 1))(
    'serve killed %i ms into a refresh writing its rows: reopens whole',
    async (ms) => {
      const mirror = await createSnapshotMirror()
      try {
        await mirror.offer(caida(REFRESHED))
        const serve = new KcoreProcess(
          ['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', crash.dataDir, '--no-seed'],
          { KCORE_SCHEDULER_ENABLED: 'false', KCORE_PROVIDER_URL: mirror.fileUrl },
        )
        const listening = await serve.waitForLog((e) => e.msg === 'listening', 120_000)
        const url = `http://127.0.0.1:${new URL(String(listening.url)).port}/api/refresh`
        const start = await sizeOf(join(crash.dataDir, 'base'))
        const answer = fetch(url, { method: 'POST' }).then(
          (r) => r.json(),
          (e: unknown) => e,
        )
        let gone = false
        void serve.exited.then(() => {
          gone = true
        })
        // (or the refresh answered: the date was stored by the previous case)
        void answer.then(() => {
          gone = true
        })
        await crash.untilWriting('the refresh to write its rows', start, () => gone)
        await delay(ms)
        const exit = await serve.kill('SIGKILL')
        await answer
        const stored = await crash.expectWhole('2024-02-01')
        crash.outcomes.push(
          `serve writing+${ms}: ${exit.signal ?? `exit ${exit.code}`}, refreshed ${stored ? 'stored' : 'absent'}`,
        )
      } finally {
        await mirror.close()
      }
    },
    180_000,
  )
})
