import type { IpVersion } from '@kcore/engine'
import type { ColumnType, Generated, RawBuilder } from 'kysely'

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

/**
 * One row per stored snapshot: its ASNs and shell indices in the compact form of
 * `shell-blobs.ts` (migration 0005), written in the transaction that writes its
 * {@link SnapshotTable} row.
 */
export interface SnapshotShellsTable {
  ip_version: IpVersion
  date: string
  asns: Uint8Array
  shells: Uint8Array
  /**
   * Every 256th ASN of `asns` (`fenceOf`, migration 0006), for searching one AS without
   * reading the blob. Written, never read back (the search uses it in SQL).
   */
  fence: ColumnType<never, RawBuilder<unknown>, RawBuilder<unknown>>
}

/**
 * One row per snapshot ingested since migration 0010: its graph's links as
 * `encodeGraphLinks` wrote them (`format_version`: its `GRAPH_LINKS_VERSION`), written in the
 * transaction that writes its {@link SnapshotTable} row.
 */
export interface SnapshotLinksTable {
  ip_version: IpVersion
  snapshot_date: string
  format_version: number
  links: Uint8Array
}

/** Every ASN seen in any stored snapshot of one version, as one ascending uint32 blob. */
export interface KnownAsnsTable {
  ip_version: IpVersion
  asns: Uint8Array
}

/** The one-row data revision (see the `0002_revision` migration). */
export interface RevisionTable {
  singleton: Generated<boolean>
  /** `bigint`: the driver returns it as a string. */
  revision: ColumnType<string, string, string>
}

/** The one stored AS registry import (migration 0009, `as-registry/`). */
export interface AsRegistryTable {
  singleton: Generated<boolean>
  source: string
  date: string
  imported_at: Generated<Date>
  asn_count: number
}

/** One ASN of the AS registry. */
export interface AsEntryTable {
  asn: number
  name: string
  name_key: string
  ipv4_addresses: number
  ipv4_slash24s: number
  ipv4_prefixes: number
  ipv6_slash48s: number
  ipv6_prefixes: number
}

/** The tables of `@kcore/store`, as Kysely sees them. */
export type KcoreSchema = {
  kcore_revision: RevisionTable
  kcore_snapshot: SnapshotTable
  kcore_snapshot_shells: SnapshotShellsTable
  kcore_snapshot_links: SnapshotLinksTable
  kcore_known_asns: KnownAsnsTable
  kcore_as_registry: AsRegistryTable
  kcore_as_entry: AsEntryTable
}
