import { readFile } from 'node:fs/promises'
import type { Database } from '@kcore/db'
import { decomposeSnapshot, type IpVersion } from '@kcore/engine'
import { decodeAsns, decodeShells } from '@kcore/store/testing'
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
 * Every stored snapshot with the ASes of its shell blob counted and summed, plus shell blobs of
 * dates that have no snapshot row (`unique_asns` -1): a partial ingest shows up either way.
 * Ordered by version and date.
 */
export async function storedSnapshots(database: Database): Promise<SnapshotFigures[]> {
  const { rows } = await sql<{
    ip_version: IpVersion
    date: string
    unique_asns: number
    max_shell_index: number
    asns: Uint8Array | null
    shells: Uint8Array | null
  }>`select coalesce(s.ip_version, x.ip_version) as ip_version,
           coalesce(s.date, x.date)::text as date,
           coalesce(s.unique_asns, -1) as unique_asns,
           coalesce(s.max_shell_index, -1) as max_shell_index,
           x.asns, x.shells
      from kcore_snapshot s
      full join kcore_snapshot_shells x on x.ip_version = s.ip_version and x.date = s.date
     order by 1, 2`.execute(database.db)
  return rows.map(({ asns, shells, ...row }) => {
    const decoded = asns && shells ? decodeShells({ asns, shells }) : undefined
    let sum = 0
    for (const shell of decoded?.shells ?? []) sum += shell
    return { ...row, shell_rows: decoded?.asns.length ?? 0, shell_sum: sum }
  })
}

/** ASNs in the known-ASN blobs that no snapshot's blob has, and snapshot ASNs missing there. */
export async function knownAsnDrift(database: Database): Promise<number> {
  let drift = 0
  for (const ipVersion of ['ipv4', 'ipv6'] as const) {
    const { rows } = await sql<{ asns: Uint8Array }>`select asns from kcore_snapshot_shells
      where ip_version = ${ipVersion}`.execute(database.db)
    const seen = new Set<number>()
    for (const row of rows) for (const asn of decodeAsns(row.asns)) seen.add(asn)
    const known = await sql<{ asns: Uint8Array }>`select asns from kcore_known_asns
      where ip_version = ${ipVersion}`.execute(database.db)
    const listed = new Set(known.rows[0] ? decodeAsns(known.rows[0].asns) : [])
    for (const asn of listed) if (!seen.has(asn)) drift++
    for (const asn of seen) if (!listed.has(asn)) drift++
  }
  return drift
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
