import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { rotatingSample } from '@kcore/db/testing'
import { describe, it } from 'vitest'
import { crashDir, sizeOf } from './pglite-crash.js'

// kill -9 of `kcore ingest` while it writes the shell rows (`pglite-crash.ts`).
describe('kill -9 of an ingest writing its rows on PGlite', () => {
  const crash = crashDir()

  // Killed while the shell rows are being written: once the table files have grown by 256 KiB
  // (the 77,000-row insert writes several MiB), and a little later.
  it.each(rotatingSample('ingest kill points while writing', [0, 100, 300, 800], 1))(
    'killed %i ms into writing the rows: reopens with whole snapshots only',
    async (ms) => {
      const ingest = await crash.startIngest()
      const start = await sizeOf(join(crash.dataDir, 'base'))
      let gone = false
      void ingest.exited.then(() => {
        gone = true
      })
      await crash.untilWriting('the ingest to write its rows', start, () => gone)
      await delay(ms)
      const exit = await ingest.kill('SIGKILL')
      const stored = await crash.expectWhole()
      crash.outcomes.push(
        `writing+${ms}: ${exit.signal ?? `exit ${exit.code}`}, in-flight ${stored ? 'stored' : 'absent'}`,
      )
    },
    180_000,
  )
})
