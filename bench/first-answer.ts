// One restart of bench/trends-uncached.ts, as a process of its own: opens the history
// database and builds the store and handler as a starting service does (`createApp` in
// @kcore/service: the store is made and migrated, the handler built, then warmed up by
// `warmUp`), and times the first GET /api/trends/{asn} (nothing loaded; only what the warm-up
// ran compiled). --cold leaves the warm-up out, to measure what it earns. With --load it then
// times the store's model loading to the same revision.
// Prints one JSON line last: { ms, status, warmMs?, loadMs? }.
//   node --import tsx bench/first-answer.ts <asn> [--cold] [--load]   (the packages' dist, as kcore serve)
import { createHandler } from '@kcore/http-adapter'
import { warmUp } from '@kcore/service'
import { createKcoreStore } from '@kcore/store'
import { openTrendHistory, readOnlyKcoreOptions, untilModelLoaded } from './trend-history.js'

const asn = Number(process.argv[2])
const { database } = await openTrendHistory(
  process.env.BENCH_DB ?? 'kcore_bench_trends',
  Number(process.env.BENCH_SNAPSHOTS ?? 460),
)
try {
  const store = createKcoreStore(database)
  await store.migrate()
  const handler = createHandler({ kcore: readOnlyKcoreOptions(store, { cached: false }) })
  let warmMs: number | undefined
  if (!process.argv.includes('--cold')) {
    const warmStart = performance.now()
    await warmUp(handler, store)
    warmMs = performance.now() - warmStart
  }
  const started = performance.now()
  const answer = await handler(new Request(`http://localhost/api/trends/${asn}`))
  await answer.arrayBuffer()
  const ms = performance.now() - started
  let loadMs: number | undefined
  if (process.argv.includes('--load')) {
    const loadStart = performance.now()
    await untilModelLoaded(store, asn)
    loadMs = performance.now() - loadStart
  }
  console.log(JSON.stringify({ ms, status: answer.status, warmMs, loadMs }))
} finally {
  await database.close()
}
