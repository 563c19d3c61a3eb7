import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import { committedRead } from './committed-read.js'
import type { CoreAnswer, CoreSelector } from './kcore-store-types.js'
import { integerOption, MAX_RESEARCH_LIMIT } from './query-options.js'
import { querySnapshot } from './query-snapshots.js'
import { type KcoreSchema, shellTable } from './schema.js'

/**
 * The k-core of a snapshot (ASes with `shell_index >= k`, k defaulting to the maximum, so the
 * innermost core) or its top-N ASes by shell index (ties by ASN, `k` = the lowest among them).
 * A k above the maximum is an empty core, not an error.
 */
export async function queryCore(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  date: string,
  select: CoreSelector = {},
): Promise<CoreAnswer> {
  const top = 'top' in select ? integerOption('top', select.top, 1, MAX_RESEARCH_LIMIT) : undefined
  const askedK =
    'k' in select && select.k !== undefined
      ? integerOption('k', select.k, 0, Number.MAX_SAFE_INTEGER)
      : undefined
  // The record (its max: the default k) and the rows from one committed state.
  return committedRead(db, async (trx) => {
    const snapshot = await querySnapshot(trx, ipVersion, date)
    const maxShell = snapshot.max_shell_index
    const table = sql.table(shellTable(ipVersion))
    let k: number
    let asns: number[]
    if (top !== undefined) {
      const { rows } = await sql<{ asn: number | string; shell_index: number }>`
        select asn, shell_index from ${table} where date = ${date}::date
        order by shell_index desc, asn limit ${top}`.execute(trx)
      k = rows.length > 0 ? rows[rows.length - 1]!.shell_index : 0
      asns = rows.map((r) => Number(r.asn)).sort((a, b) => a - b)
    } else {
      k = askedK ?? maxShell
      const { rows } =
        k > maxShell
          ? { rows: [] }
          : await sql<{ asn: number | string }>`
              select asn from ${table} where date = ${date}::date and shell_index >= ${k}
              order by asn`.execute(trx)
      asns = rows.map((r) => Number(r.asn))
    }
    return { date, ip_version: ipVersion, k, max_shell_index: maxShell, count: asns.length, asns }
  })
}
