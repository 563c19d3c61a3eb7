import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { calendarInvariantBreaks } from '../../http-adapter/test/cal-invariants.js'
import { MODEL_TABLES, modelSeeds, runCalModel } from '../../http-adapter/test/cal-model.js'
import { type KcoreServer, startServer } from './kcore-process.js'
import { createThrowawayPostgres, type ThrowawayPostgres } from './throwaway-postgres.js'

// Issue 11: the calendar concurrency model (see http-adapter's cal-concurrency-model.slow.test.ts)
// with its clients spread over two `kcore serve` processes on one PostgreSQL database, where
// only the database's locks order the writes. CAL_MODEL_PROCESS_RUNS seeds (default 3);
// CAL_MODEL_SEED replays one. Needs `pnpm --filter @kcore/cli... build`.

const DATABASE_URL = process.env.DATABASE_URL
if (!DATABASE_URL) console.log('cal-model-processes: skipped, set DATABASE_URL to run it')
const CAL_TOKEN = 'cal-model-processes-token'
const OPS = Number(process.env.CAL_MODEL_OPS ?? 300)
const SEEDS = modelSeeds(3, {
  ...process.env,
  CAL_MODEL_RUNS: process.env.CAL_MODEL_PROCESS_RUNS ?? '3',
})

describe.skipIf(!DATABASE_URL)('calendar concurrency model over two kcore processes', () => {
  let pg: ThrowawayPostgres
  let servers: KcoreServer[] = []
  beforeAll(async () => {
    pg = await createThrowawayPostgres(DATABASE_URL!)
    servers = await Promise.all(
      [0, 1].map(() =>
        startServer({
          databaseUrl: pg.url,
          // No refresh runs here (scheduler off): the provider is never asked.
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

  const call = (server: KcoreServer, method: string, path: string, body?: unknown) =>
    server.call(`/cal/events/v1${path}`, { method, json: body, token: CAL_TOKEN })

  it.each(SEEDS)('seed %i keeps every invariant', { timeout: 180_000 }, async (seed) => {
    await sql`truncate ${sql.raw(MODEL_TABLES)} restart identity cascade`.execute(pg.database.db)
    const run = await runCalModel({
      seed,
      ops: OPS,
      clients: 8,
      // Clients alternate between the processes.
      call: (client, method, path, body) => call(servers[client % 2]!, method, path, body),
    })
    const breaks = [
      ...run.serverErrors.map((e) => `5xx: ${e}`),
      ...(await calendarInvariantBreaks(
        { db: pg.database.db, get: (path) => servers[1]!.call(`/cal/events/v1${path}`) },
        run.deletes,
      )),
    ]
    const replay = `seed ${seed} (replay: CAL_MODEL_SEED=${seed}); answers ${run.mix}`
    expect(breaks.join('\n'), replay).toBe('')
    expect(run.answers.get('DELETE 200') ?? 0, replay).toBeGreaterThan(OPS / 20)
  })
})
