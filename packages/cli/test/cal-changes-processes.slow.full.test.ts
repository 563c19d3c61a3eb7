import { seedRun } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MirrorCall, runMirror } from '../../http-adapter/test/cal-mirror.js'
import { type KcoreServer, startServer } from './kcore-process.js'
import { createThrowawayPostgres, type ThrowawayPostgres } from './throwaway-postgres.js'

// Issue 30: "a mirror converges" over two `kcore serve` processes on one PostgreSQL database.
// Writers alternate between the processes; the mirrors full-sync (120+ events) and follow /changes on
// either, so a token made by one process is followed on the other. CAL_MIRROR_RUNS seeds
// (default 2); CAL_MIRROR_SEED replays one. Needs `pnpm --filter @kcore/cli... build`.

const DATABASE_URL = process.env.DATABASE_URL
if (!DATABASE_URL) console.log('cal-changes-processes: skipped, set DATABASE_URL to run it')
const CAL_TOKEN = 'cal-changes-processes-token'
const SEEDS = process.env.CAL_MIRROR_SEED
  ? [Number(process.env.CAL_MIRROR_SEED)]
  : seedRun('changes mirror over processes', Number(process.env.CAL_MIRROR_RUNS ?? 2))

describe.skipIf(!DATABASE_URL)('a changes mirror over two kcore processes', () => {
  let pg: ThrowawayPostgres
  let servers: KcoreServer[] = []
  beforeAll(async () => {
    pg = await createThrowawayPostgres(DATABASE_URL!)
    servers = await Promise.all(
      [0, 1].map(() =>
        startServer({
          databaseUrl: pg.url,
          providerUrl: 'http://127.0.0.1:9/',
          calTokens: [CAL_TOKEN],
        }),
      ),
    )
  }, 60_000)
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()))
    await pg?.drop()
  })

  it.each(SEEDS)('seed %i converges', { timeout: 240_000 }, async (seed) => {
    // Each call goes to the process of its turn: a client's reads hop between the two.
    let turn = 0
    const call: MirrorCall = (client, method, path, options = {}) =>
      servers[(client + turn++) % 2]!.call(`/cal/events/v1${path}`, {
        method,
        json: options.body,
        token: options.holder ? CAL_TOKEN : undefined,
      })
    // Each seed starts from the calendar the last left: the full sync lists whatever is there.
    const run = await runMirror({ call, seed, writers: 6, ops: 30 })
    const replay = `seed ${seed} (replay: CAL_MIRROR_SEED=${seed})`
    expect(run.diffs.join('\n'), replay).toBe('')
    expect(run.applied[1], replay).toBeGreaterThan(140)
  })
})
