import { setTimeout as delay } from 'node:timers/promises'
import { rotatingSample } from '@kcore/db/testing'
import { describe, expect, it } from 'vitest'
import { KcoreProcess } from './kcore-process.js'
import { crashDir, IN_FLIGHT, QUIET } from './pglite-crash.js'
import { caida } from './snapshot-mirror.js'

// kill -9 of `kcore ingest` at a time after it owns the directory (`pglite-crash.ts`).
describe('kill -9 in the middle of an ingest on PGlite', () => {
  const crash = crashDir()

  // Milliseconds after the ingest owns the directory; the later ones land in the decomposition
  // and the insert on this machine, the last ones usually after the commit. Each kill point is
  // its own process run: `pnpm test:full` takes every one, other runs a rotating few.
  it.each(
    rotatingSample('ingest kill points', [0, 250, 1_000, 2_000, 3_000, 4_500, 6_000, 9_000], 1),
  )(
    'killed %i ms in: reopens with whole snapshots only',
    async (ms) => {
      const ingest = await crash.startIngest()
      await delay(ms)
      const exit = await ingest.kill('SIGKILL')
      const stored = await crash.expectWhole()
      crash.outcomes.push(
        `${ms}: ${exit.signal ?? `exit ${exit.code}`}, in-flight ${stored ? 'stored' : 'absent'}`,
      )
    },
    120_000,
  )

  it('then a normal ingest stores the snapshot whole', async () => {
    const ingest = new KcoreProcess(
      ['ingest', '--data-dir', crash.dataDir, caida(IN_FLIGHT)],
      QUIET,
    )
    expect(await ingest.exited, ingest.output()).toEqual({ code: 0, signal: null })
    expect(await crash.expectWhole()).toBe(true)
  }, 120_000)
})
