import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKcoreStore } from '../src/index.js'
import { trendQuery } from '../src/query-trends.js'

interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  'Actual Rows': number
  'Actual Loops': number
  Plans?: PlanNode[]
}

const SNAPSHOTS = 240
const ASES = 1_000

function nodesOn(node: PlanNode, relation: string): PlanNode[] {
  const own = node['Relation Name'] === relation ? [node] : []
  return [...own, ...(node.Plans ?? []).flatMap((n) => nodesOn(n, relation))]
}

// The full bench (bench/ingest.ts) checks the same plan over ~20M rows; this keeps a guard in CI.
describe.each(testDatabases())('trend query plan on $name', ({ open }) => {
  let database: Database

  beforeAll(async () => {
    database = await open()
    await createKcoreStore(database).migrate()
    const db = database.db
    await sql`insert into kcore_snapshot (ip_version, date, max_shell_index, unique_asns, link_count)
      select 'ipv4', date '2000-01-01' + make_interval(months => m), 50, ${ASES}, 0
      from generate_series(0, ${SNAPSHOTS - 1}) m`.execute(db)
    await sql`insert into kcore_shell_ipv4 (asn, date, shell_index)
      select a, (date '2000-01-01' + make_interval(months => m))::date, (a + m) % 50
      from generate_series(0, ${SNAPSHOTS - 1}) m, generate_series(1, ${ASES}) a`.execute(db)
    await sql`vacuum analyze`.execute(db)
  })
  afterAll(async () => {
    await database?.close()
  })

  // After VACUUM (autovacuum does it after bulk inserts) the plan is an index-only scan.
  it('reads each ASN through the (asn, date) key, one row per snapshot at most', async () => {
    const asns = [7, 512, 999]
    const compiled = trendQuery('ipv4', asns, { start: '2001-01-01' }).compile(database.db)
    const { rows } = await database.db.executeQuery<{ 'QUERY PLAN': unknown }>({
      ...compiled,
      sql: `explain (analyze, format json) ${compiled.sql}`,
    })
    const [{ Plan }] = rows[0]!['QUERY PLAN'] as [{ Plan: PlanNode }]
    const scans = nodesOn(Plan, 'kcore_shell_ipv4')
    expect(scans).toHaveLength(1)
    expect(scans[0]!['Node Type']).toMatch(/^Index (Only )?Scan$/)
    const read = scans[0]!['Actual Rows'] * scans[0]!['Actual Loops']
    expect(read).toBe(asns.length * (SNAPSHOTS - 12))
    const text = JSON.stringify(Plan)
    expect(text).toContain('kcore_shell_ipv4_pk')
  })
})
