import type { IpVersion } from '@kcore/engine'
import { type Kysely, type RawBuilder, sql } from 'kysely'
import { committedRead } from './committed-read.js'
import type { CoreMover, Movers, MoversOptions, RankMover } from './kcore-store-types.js'
import { normalizedShell } from './normalized-shell.js'
import { integerOption, MAX_INT4, MAX_RESEARCH_LIMIT } from './query-options.js'
import { querySnapshot } from './query-snapshots.js'
import { type KcoreSchema, shellTable } from './schema.js'

/**
 * {@link normalizedShell} in SQL, to rank in the database: float8 (IEEE division, the same
 * double JavaScript computes), 0 when max is 0. The reported `change` is computed by
 * `normalizedShell` itself.
 */
const normalized = (shell: RawBuilder<unknown>, max: number) =>
  max > 0 ? sql`(${shell}::float8 / ${max}::float8)` : sql`0::float8`

/**
 * Between two stored snapshots of a version: the ASes that entered or left the k-core (k
 * defaulting to the maximum of `to`; an AS absent from a snapshot is outside every core there),
 * and the largest rises and falls of `normalized_shell_index` among ASes present in both,
 * computed in the database in one statement.
 */
export async function queryMovers(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  from: string,
  to: string,
  options: MoversOptions = {},
): Promise<Movers> {
  const limit = integerOption('limit', options.limit ?? 100, 1, MAX_RESEARCH_LIMIT)
  const askedK =
    options.k === undefined ? undefined : integerOption('k', options.k, 0, Number.MAX_SAFE_INTEGER)
  // Both records and the rows from one committed state (either date may be re-ingested).
  const { before, after, k, rows } = await committedRead(db, async (trx) => {
    const before = await querySnapshot(trx, ipVersion, from)
    const after = await querySnapshot(trx, ipVersion, to)
    const k = askedK ?? after.max_shell_index
    // Shell indices are int4: a larger k selects the same (empty) core and keeps the parameter in range.
    const sqlK = Math.min(k, MAX_INT4)
    const table = sql.table(shellTable(ipVersion))
    const change = sql`${normalized(sql.ref('ts'), after.max_shell_index)} - ${normalized(sql.ref('fs'), before.max_shell_index)}`
    // One join of the two dates' index ranges, materialized once and read three times: the
    // crossings of k, the top risers and the top fallers (each ordered and limited in SQL).
    const { rows } = await sql<{
      kind: 'crossed' | 'rise' | 'fall'
      asn: number | string
      fs: number | null
      ts: number | null
    }>`with j as materialized (
      select coalesce(f.asn, t.asn) as asn, f.shell_index as fs, t.shell_index as ts
      from (select asn, shell_index from ${table} where date = ${from}::date) f
      full join (select asn, shell_index from ${table} where date = ${to}::date) t
        on f.asn = t.asn)
    (select 'crossed' as kind, asn, fs, ts from j
      where (coalesce(fs, -1) >= ${sqlK}) <> (coalesce(ts, -1) >= ${sqlK}))
    union all
    (select 'rise', asn, fs, ts from j
      where fs is not null and ts is not null and ${change} > 0
      order by ${change} desc, asn limit ${limit})
    union all
    (select 'fall', asn, fs, ts from j
      where fs is not null and ts is not null and ${change} < 0
      order by ${change} asc, asn limit ${limit})`.execute(trx)
    return { before, after, k, rows }
  })

  const entered: CoreMover[] = []
  const left: CoreMover[] = []
  const risers: RankMover[] = []
  const fallers: RankMover[] = []
  for (const row of rows) {
    const asn = Number(row.asn)
    if (row.kind === 'crossed') {
      const mover = { asn, from_shell: row.fs, to_shell: row.ts }
      ;((row.ts ?? -1) >= k ? entered : left).push(mover)
    } else {
      const fromShell = row.fs!
      const toShell = row.ts!
      const delta =
        normalizedShell(toShell, after.max_shell_index) -
        normalizedShell(fromShell, before.max_shell_index)
      const mover = { asn, from_shell: fromShell, to_shell: toShell, change: delta }
      ;(row.kind === 'rise' ? risers : fallers).push(mover)
    }
  }
  // A union's parts come back in no promised order: order each list here, as SQL chose them.
  entered.sort((a, b) => a.asn - b.asn)
  left.sort((a, b) => a.asn - b.asn)
  risers.sort((a, b) => b.change - a.change || a.asn - b.asn)
  fallers.sort((a, b) => a.change - b.change || a.asn - b.asn)
  return { ip_version: ipVersion, from, to, k, entered, left, risers, fallers }
}
