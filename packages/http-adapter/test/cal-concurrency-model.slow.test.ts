import { testDatabases, testLevel } from '@kcore/db/testing'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CalHarness, openCal } from './cal-harness.js'
import { calendarInvariantBreaks } from './cal-invariants.js'
import { MODEL_TABLES, modelSeeds, runCalModel } from './cal-model.js'

// Model-based concurrency suite (issue 11): K clients issue seeded random mixes of creates,
// updates and deletes of every calendar kind at once, through the HTTP handler; afterwards the
// database must hold every invariant. PostgreSQL only: PGlite runs one connection, so nothing
// ever interleaves there. CAL_MODEL_RUNS seeds (6 in CI, 20 in `pnpm test:full`) of CAL_MODEL_OPS
// operations (default 300); CAL_MODEL_SEED replays one. Failures name the seed.
const postgres = testDatabases().find((d) => d.name === 'postgres')
if (!postgres)
  console.log('cal-concurrency-model: skipped, set DATABASE_URL to run it on PostgreSQL')

const OPS = Number(process.env.CAL_MODEL_OPS ?? 300)
const CLIENTS = 8

describe.skipIf(!postgres)('calendar concurrency model on postgres', () => {
  let cal: CalHarness
  beforeAll(async () => {
    cal = await openCal(postgres!.open)
  })
  afterAll(async () => {
    await cal?.close()
  })

  it.each(modelSeeds(testLevel() === 'full' ? 20 : 6))(
    'seed %i keeps every invariant',
    { timeout: 120_000 },
    async (seed) => {
      await sql`truncate ${sql.raw(MODEL_TABLES)} restart identity cascade`.execute(cal.database.db)
      const run = await runCalModel({
        seed,
        ops: OPS,
        clients: CLIENTS,
        call: (_, method, path, body) => cal.call(method, path, { body, token: true }),
      })
      const breaks = [
        ...run.serverErrors.map((e) => `5xx: ${e}`),
        ...(await calendarInvariantBreaks(
          { db: cal.database.db, get: (path) => cal.get(path) },
          run.deletes,
        )),
      ]
      const replay = `seed ${seed} (replay: CAL_MODEL_SEED=${seed}); answers ${run.mix}`
      expect(breaks.join('\n'), replay).toBe('')
      // Not vacuous: creates, updates and deletes each succeeded many times.
      for (const method of ['POST 201', 'PATCH 200', 'DELETE 200']) {
        expect(run.answers.get(method) ?? 0, replay).toBeGreaterThan(OPS / 20)
      }
      if (process.env.CAL_MODEL_VERBOSE) console.log(replay)
    },
  )
})
