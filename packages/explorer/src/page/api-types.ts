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

/** One version of `GET /api/asns/{asn}`: where the AS appears in that version's snapshots. */
export interface AsnVersionOverview {
  first_seen: string
  last_seen: string
  snapshots: number
  latest: TrendPoint
}

/** Where the AS registry's names come from: a dated reference, not the truth. */
export interface RegistryInfo {
  source: string
  date: string
}

/** `GET /api/asns/{asn}`. */
export interface AsnOverview {
  asn: number
  ipv4: AsnVersionOverview | null
  ipv6: AsnVersionOverview | null
  name?: string | null
  address_space?: {
    ipv4: { addresses: number; slash24s: number; prefixes: number }
    ipv6: { slash48s: number; prefixes: number }
  } | null
  registry?: RegistryInfo | null
}

/** `GET /api/asns?search=`. */
export interface AsnSearchResponse {
  search: string
  registry: RegistryInfo | null
  asns: { asn: number; name: string }[]
}

/** One methodology change of the data (`/api/summary`'s optional `breaks.items`). */
export interface DataBreak {
  date: string
  what: string
  source: string
  ip_version?: 'ipv4' | 'ipv6'
}

/** `GET /api/snapshots/{date}/distribution`: how many ASes each non-empty shell holds. */
export interface DistributionResponse {
  date: string
  ip_version: string
  max_shell_index: number
  unique_asns: number
  shells: { shell_index: number; count: number }[]
}

/** One AS whose shell index a what-if changes (`null`: removed, or brought in by a link). */
export interface ShellChange {
  asn: number
  before: number | null
  after: number | null
}

/** `counts` of a what-if answer. */
export interface WhatIfCounts {
  changed: number
  removed_asns: number
  added_asns: number
  ignored_asns: number
  removed_links: number
  added_links: number
  ignored_links: number
}

/** `POST /api/what-if`. */
export interface WhatIfResponse {
  date: string
  ip_version: 'ipv4' | 'ipv6'
  max_shell_before: number
  max_shell: number
  counts: WhatIfCounts
  changes: ShellChange[]
}
