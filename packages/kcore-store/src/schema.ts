import type { IpVersion } from '@kcore/engine'
import type { ColumnType, Generated } from 'kysely'

/** One row per stored snapshot (IP version + date). */
export interface SnapshotTable {
  ip_version: IpVersion
  date: string
  max_shell_index: number
  unique_asns: number
  link_count: number
  source: string | null
  metadata: ColumnType<unknown, string | null, string | null>
  ingested_at: Generated<Date>
  source_url: string | null
  serial: number | null
  sha256: string | null
  file_modified: Date | null
  engine_version: string | null
}

/** One row per AS per snapshot: its shell index (core number). One table per IP version. */
export interface ShellTable {
  asn: number
  date: string
  shell_index: number
}

/** Every ASN seen in any snapshot of one IP version (kept in step with the shell table). */
export interface KnownAsnTable {
  asn: number
}

/** The tables of `@kcore/store`, as Kysely sees them. */
/** The one-row data revision (see the `0002_revision` migration). */
export interface RevisionTable {
  singleton: Generated<boolean>
  /** `bigint`: the driver returns it as a string. */
  revision: ColumnType<string, string, string>
}

export type KcoreSchema = {
  kcore_revision: RevisionTable
  kcore_snapshot: SnapshotTable
  kcore_shell_ipv4: ShellTable
  kcore_shell_ipv6: ShellTable
  kcore_asn_ipv4: KnownAsnTable
  kcore_asn_ipv6: KnownAsnTable
}

/** The shell-index table of one IP version. */
export function shellTable(ipVersion: IpVersion): 'kcore_shell_ipv4' | 'kcore_shell_ipv6' {
  return ipVersion === 'ipv6' ? 'kcore_shell_ipv6' : 'kcore_shell_ipv4'
}

/** The known-ASN table of one IP version. */
export function knownAsnTable(ipVersion: IpVersion): 'kcore_asn_ipv4' | 'kcore_asn_ipv6' {
  return ipVersion === 'ipv6' ? 'kcore_asn_ipv6' : 'kcore_asn_ipv4'
}
