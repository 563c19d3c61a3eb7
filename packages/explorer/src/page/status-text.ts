import type { HealthResponse, SnapshotsResponse, SummaryResponse } from './api-types.js'

const VERSIONS = [
  ['ipv4', 'IPv4'],
  ['ipv6', 'IPv6'],
] as const

/** The data-status strip: per-version counts and ranges, last ingest, database health. */
export function statusText(
  summary: SummaryResponse,
  health: HealthResponse,
  snapshots: SnapshotsResponse,
): string {
  const parts: string[] = []
  for (const [key, name] of VERSIONS) {
    const s = summary[key]
    if (!s) continue
    const count = `${s.snapshot_count} snapshot${s.snapshot_count === 1 ? '' : 's'}`
    parts.push(
      `${name}: ${count}, ${s.date_range[0]} to ${s.date_range[1]}, ${s.total_asns.toLocaleString('en')} ASNs`,
    )
  }
  if (parts.length === 0) parts.push('No snapshot stored yet (run `kcore refresh`)')
  const ingested = [...(snapshots.ipv4 ?? []), ...(snapshots.ipv6 ?? [])]
    .map((row) => row.ingested_at)
    .filter((at): at is string => typeof at === 'string')
    .sort()
    .at(-1)
  if (ingested) parts.push(`last ingest ${ingested.slice(0, 16).replace('T', ' ')} UTC`)
  const dialect = health.database.dialect ? ` (${health.database.dialect})` : ''
  parts.push(`database ${health.database.status}${dialect}, v${health.version}`)
  return parts.join(' · ')
}
