import type { IpVersion } from '@kcore/engine'
import { type Kysely, type RawBuilder, sql } from 'kysely'
import type { CoreMover, Movers, MoversOptions, RankMover } from './kcore-store-types.js'
import { integerOption, MAX_INT4, MAX_RESEARCH_LIMIT } from './query-options.js'
import { querySnapshot } from './query-snapshots.js'
import { type KcoreSchema, shellTable } from './schema.js'

/** `shell / max` as float8 (IEEE division, the same double JavaScript computes), 0 when max is 0. */
const normalized = (shell: RawBuilder<unknown>, max: number) =>
  max > 0 ? sql`(${shell}::float8 / ${max}::float8)` : sql`0::float8`

/**
 * Between two stored snapshots of a version: the ASes that entered or left the k-core (k
 * defaulting to the maximum of `to`; an AS absent from a snapshot is outside every core there),
 * and the largest rises and falls of `normalized_shell_index` among ASes present in both. Each
 * part is one join of the two dates' index ranges, computed in the database.
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
  const [before, after] = await Promise.all([
    querySnapshot(db, ipVersion, from),
    querySnapshot(db, ipVersion, to),
  ])
  const k = askedK ?? after.max_shell_index
  // Shell indices are int4: a larger k selects the same (empty) core and keeps the parameter in range.
  const sqlK = Math.min(k, MAX_INT4)
  const table = sql.table(shellTable(ipVersion))
  const pairs = sql`(select asn, shell_index from ${table} where date = ${from}::date) f
    full join (select asn, shell_index from ${table} where date = ${to}::date) t on f.asn = t.asn`

  const { rows: crossed } = await sql<{
    asn: number | string
    from_shell: number | null
    to_shell: number | null
  }>`select coalesce(f.asn, t.asn) as asn, f.shell_index as from_shell, t.shell_index as to_shell
    from ${pairs}
    where (coalesce(f.shell_index, -1) >= ${sqlK}) <> (coalesce(t.shell_index, -1) >= ${sqlK})
    order by 1`.execute(db)
  const entered: CoreMover[] = []
  const left: CoreMover[] = []
  for (const row of crossed) {
    const mover = { asn: Number(row.asn), from_shell: row.from_shell, to_shell: row.to_shell }
    ;((row.to_shell ?? -1) >= k ? entered : left).push(mover)
  }

  const change = sql`${normalized(sql.ref('t.shell_index'), after.max_shell_index)} - ${normalized(sql.ref('f.shell_index'), before.max_shell_index)}`
  const ranked = async (direction: 'rise' | 'fall'): Promise<RankMover[]> => {
    const { rows } = await sql<{ asn: number | string; from_shell: number; to_shell: number }>`
      select f.asn, f.shell_index as from_shell, t.shell_index as to_shell
      from ${pairs}
      where f.asn is not null and t.asn is not null
        and ${change} ${direction === 'rise' ? sql`> 0` : sql`< 0`}
      order by ${change} ${direction === 'rise' ? sql`desc` : sql`asc`}, 1
      limit ${limit}`.execute(db)
    return rows.map((r) => ({
      asn: Number(r.asn),
      from_shell: r.from_shell,
      to_shell: r.to_shell,
      change:
        ratio(r.to_shell, after.max_shell_index) - ratio(r.from_shell, before.max_shell_index),
    }))
  }
  const risers = await ranked('rise')
  const fallers = await ranked('fall')
  return { ip_version: ipVersion, from, to, k, entered, left, risers, fallers }
}

const ratio = (shell: number, max: number) => (max > 0 ? shell / max : 0)
