// The shapes of the public /api answers the page reads (see the spec's kcore-api.md).

export interface TrendPoint {
  date: string
  shell_index: number
  max_shell_index: number
  normalized_shell_index: number
}

export interface TrendResponse {
  asn: number
  ip_version: string
  date_range: { start: string | null; end: string | null }
  trend_data: TrendPoint[]
}

export interface SnapshotRow {
  date: string
  max_shell_index: number
  unique_asns: number
  ingested_at?: string
}

export type SnapshotsResponse = Partial<Record<'ipv4' | 'ipv6', SnapshotRow[]>>

export interface VersionSummary {
  snapshot_count: number
  date_range: [string, string]
  total_asns: number
  max_shell_index?: number
}

export type SummaryResponse = Partial<Record<'ipv4' | 'ipv6', VersionSummary>>

export interface HealthResponse {
  status: string
  version: string
  data_status: string
  database: { status: string; connection: string; dialect?: string }
}
