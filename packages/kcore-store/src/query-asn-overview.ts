import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import { committedRead } from './committed-read.js'
import { AsnNotFoundError } from './errors.js'
import type { AsnOverview, AsnVersionOverview } from './kcore-store-types.js'
import { normalizedShell } from './normalized-shell.js'
import { type KcoreSchema, shellTable } from './schema.js'
import { assertAsns } from './validate.js'

/** One version's part of {@link queryAsnOverview}: two index-only range scans of the ASN's rows. */
async function versionOverview(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  asn: number,
): Promise<AsnVersionOverview | null> {
  const table = sql.table(shellTable(ipVersion))
  const { rows } = await sql<{
    first_seen: string
    last_seen: string
    snapshots: number
    shell_index: number
    max_shell_index: number
  }>`select a.first_seen, a.last_seen, a.snapshots, l.shell_index, n.max_shell_index
    from (select min(date) as first_seen, max(date) as last_seen, count(*)::int as snapshots
          from ${table} where asn = ${asn}) a
    join ${table} l on l.asn = ${asn} and l.date = a.last_seen
    join kcore_snapshot n on n.ip_version = ${ipVersion} and n.date = a.last_seen`.execute(db)
  const row = rows[0]
  if (!row) return null
  return {
    first_seen: row.first_seen,
    last_seen: row.last_seen,
    snapshots: row.snapshots,
    latest: {
      date: row.last_seen,
      shell_index: row.shell_index,
      max_shell_index: row.max_shell_index,
      normalized_shell_index: normalizedShell(row.shell_index, row.max_shell_index),
    },
  }
}

/** Where an AS appears in each IP version; {@link AsnNotFoundError} when in neither. */
export async function queryAsnOverview(db: Kysely<KcoreSchema>, asn: number): Promise<AsnOverview> {
  assertAsns([asn])
  // Both versions from one committed state.
  const [ipv4, ipv6] = await committedRead(db, async (trx) => [
    await versionOverview(trx, 'ipv4', asn),
    await versionOverview(trx, 'ipv6', asn),
  ])
  if (!ipv4 && !ipv6) throw new AsnNotFoundError(asn)
  return { asn, ipv4, ipv6 }
}
