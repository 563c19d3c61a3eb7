import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import type { VersionSummary } from './kcore-store-types.js'
import type { KcoreSchema } from './schema.js'

/**
 * Per-version figures from the small tables only: the snapshot table (one row per date) and
 * the known-ASN blob's length (maintained at ingest; read without fetching the blob).
 */
export async function querySummary(
  db: Kysely<KcoreSchema>,
): Promise<Partial<Record<IpVersion, VersionSummary>>> {
  const { rows } = await sql<{
    ip_version: IpVersion
    snapshot_count: number
    earliest: string
    latest: string
    max_shell_index: number
    total_asns: number
  }>`select n.ip_version, count(*)::int as snapshot_count, min(n.date) as earliest,
      max(n.date) as latest, max(n.max_shell_index) as max_shell_index,
      coalesce((select octet_length(k.asns) / 4 from kcore_known_asns k
                where k.ip_version = n.ip_version), 0)::int as total_asns
    from kcore_snapshot n group by n.ip_version order by n.ip_version`.execute(db)
  const summary: Partial<Record<IpVersion, VersionSummary>> = {}
  for (const r of rows) {
    summary[r.ip_version] = {
      snapshot_count: r.snapshot_count,
      date_range: [r.earliest, r.latest],
      total_asns: r.total_asns,
      max_shell_index: r.max_shell_index,
    }
  }
  return summary
}
