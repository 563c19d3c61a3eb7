import { readFile } from 'node:fs/promises'
import type { Database } from '@kcore/db'
import { decomposeSnapshot, type IpVersion } from '@kcore/engine'
import { sql } from 'kysely'

/** What one stored snapshot looks like, read back from its tables. */
export interface SnapshotFigures {
  ip_version: IpVersion
  date: string
  unique_asns: number
  max_shell_index: number
  /** Shell rows stored for the date. */
  shell_rows: number
  /** Sum of their shell indices: a cheap checksum against rows of another file. */
  shell_sum: number
}

/**
 * Every stored snapshot with its shell rows counted, plus shell rows of dates that have no
 * snapshot row (`unique_asns` -1): a partial ingest shows up either way. Ordered by version
 * and date.
 */
export async function storedSnapshots(database: Database): Promise<SnapshotFigures[]> {
  const { rows } = await sql<SnapshotFigures>`
    with shells as (
      select 'ipv4' as ip_version, date, count(*)::int as n, sum(shell_index)::bigint as total
        from kcore_shell_ipv4 group by date
      union all
      select 'ipv6', date, count(*)::int, sum(shell_index)::bigint
        from kcore_shell_ipv6 group by date
    )
    select coalesce(s.ip_version, x.ip_version) as ip_version,
           coalesce(s.date, x.date) as date,
           coalesce(s.unique_asns, -1) as unique_asns,
           coalesce(s.max_shell_index, -1) as max_shell_index,
           coalesce(x.n, 0) as shell_rows,
           coalesce(x.total, 0) as shell_sum
      from kcore_snapshot s
      full join shells x on x.ip_version = s.ip_version and x.date = s.date
     order by 1, 2`.execute(database.db)
  return rows
}

/** ASNs in the known-ASN tables that no shell row has, and shell ASNs missing there. */
export async function knownAsnDrift(database: Database): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select (
      (select count(*) from (select asn from kcore_asn_ipv4
                             except select asn from kcore_shell_ipv4) a)
    + (select count(*) from (select distinct asn from kcore_shell_ipv4
                             except select asn from kcore_asn_ipv4) b)
    + (select count(*) from (select asn from kcore_asn_ipv6
                             except select asn from kcore_shell_ipv6) c)
    + (select count(*) from (select distinct asn from kcore_shell_ipv6
                             except select asn from kcore_asn_ipv6) d)
    )::int as n`.execute(database.db)
  return rows[0]!.n
}

const decomposed = new Map<string, Promise<Omit<SnapshotFigures, 'ip_version' | 'date'>>>()

/** The figures a whole snapshot of `path` has, from a direct decomposition of the file. */
export function expectedFigures(
  path: string,
  ipVersion: IpVersion,
  date: string,
): Promise<SnapshotFigures> {
  let figures = decomposed.get(path)
  if (!figures) {
    figures = readFile(path).then(async (bytes) => {
      const { decomposition } = await decomposeSnapshot(new Uint8Array(bytes))
      let sum = 0
      for (const shell of decomposition.shells) sum += shell
      return {
        unique_asns: decomposition.asns.length,
        max_shell_index: decomposition.maxShell,
        shell_rows: decomposition.asns.length,
        shell_sum: sum,
      }
    })
    decomposed.set(path, figures)
  }
  return figures.then((f) => ({ ip_version: ipVersion, date, ...f }))
}
