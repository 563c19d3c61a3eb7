import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKcoreStore, ingestFile, type KcoreStore } from '../src/index.js'
import { trendQuery } from '../src/query-trends.js'
import { EXAMPLES_DIR } from './helpers.js'

interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  'Heap Fetches'?: number
  Plans?: PlanNode[]
}

function nodesOn(node: PlanNode, relation: string): PlanNode[] {
  const own = node['Relation Name'] === relation ? [node] : []
  return [...own, ...(node.Plans ?? []).flatMap((n) => nodesOn(n, relation))]
}

// Issue 19: after an ingest the store leaves the shell table vacuumed and analyzed, so the very
// next trend is an index-only scan with no heap fetch, with autovacuum off (PostgreSQL) or
// absent (PGlite). Every ingest path (refresh, scheduler, kcore ingest, backfill) goes through
// `store.ingest`, which does it.
describe.each(testDatabases())('shell table after an ingest on $name', ({ name, open }) => {
  let database: Database
  let store: KcoreStore

  beforeAll(async () => {
    database = await open()
    store = createKcoreStore(database)
    await store.migrate()
    if (name === 'postgres')
      for (const table of ['kcore_shell_ipv4', 'kcore_snapshot'])
        await sql`alter table ${sql.table(table)} set (autovacuum_enabled = false)`.execute(
          database.db,
        )
  })
  afterAll(async () => {
    await database?.close()
  })

  async function trendScan(asns: number[]): Promise<PlanNode> {
    const compiled = trendQuery('ipv4', asns).compile(database.db)
    const { rows } = await database.db.executeQuery<{ 'QUERY PLAN': unknown }>({
      ...compiled,
      sql: `explain (analyze, format json) ${compiled.sql}`,
    })
    const [{ Plan }] = rows[0]!['QUERY PLAN'] as [{ Plan: PlanNode }]
    const scans = nodesOn(Plan, 'kcore_shell_ipv4')
    expect(scans).toHaveLength(1)
    return scans[0]!
  }

  it('answers the next trend with an index-only scan and 0 heap fetches, after a new date and a replaced one', async () => {
    await ingestFile(store, `${EXAMPLES_DIR}19980101.as-rel.txt.bz2`)
    expect(await trendScan([701, 1239, 3356])).toMatchObject({
      'Node Type': 'Index Only Scan',
      'Index Name': 'kcore_shell_ipv4_pk',
      'Heap Fetches': 0,
    })
    await ingestFile(store, `${EXAMPLES_DIR}20050101.as-rel.txt.bz2`)
    // replacing a date leaves dead rows behind until vacuumed
    await ingestFile(store, `${EXAMPLES_DIR}20050101.as-rel.txt.bz2`)
    expect(await trendScan([701, 1239, 3356])).toMatchObject({
      'Node Type': 'Index Only Scan',
      'Index Name': 'kcore_shell_ipv4_pk',
      'Heap Fetches': 0,
    })
    const { rows } = await sql<{ analyzed: boolean }>`
      select last_analyze is not null or last_autoanalyze is not null as analyzed
        from pg_stat_user_tables where relname = 'kcore_shell_ipv4'`.execute(database.db)
    if (name === 'postgres') expect(rows).toEqual([{ analyzed: true }])
  })
})
