import type { HealthResponse, SnapshotsResponse, SummaryResponse, TrendPoint } from './api-types.js'
import type { IpVersion, ViewState } from './view-state.js'

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

/** The note under the trend chart: what to do with no ASN, which ASNs have no point drawn. */
export function trendNote(
  trends: Map<IpVersion, { asn: string; points: TrendPoint[] }[]>,
  view: ViewState,
): string {
  if (view.asns.length === 0) return 'Add an ASN or a name above to chart its shell index.'
  const notes: string[] = []
  for (const [version, list] of trends) {
    const empty = list.filter((t) => t.points.length === 0).map((t) => `AS${t.asn}`)
    if (empty.length) notes.push(`No ${version} point in this range for ${empty.join(', ')}.`)
  }
  return notes.join(' ')
}
