// Vitest global setup: names this run for the throwaway PostgreSQL databases `testDatabases()`
// makes (`KCORE_TEST_RUN`, inherited by every worker), and drops exactly this run's at the end:
// the harness keeps emptied databases for reuse until its worker ends, and a worker ends
// without a chance to drop them itself.
export default function setup() {
  const run = Math.random().toString(36).slice(2, 10)
  process.env.KCORE_TEST_RUN = run
  return async function teardown() {
    const url = process.env.DATABASE_URL
    if (!url) return
    const { dropRunDatabases } = await import('../src/testing/postgres-pool.js')
    await dropRunDatabases(url, run)
  }
}
