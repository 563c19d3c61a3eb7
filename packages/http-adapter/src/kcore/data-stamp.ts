import type { KcoreStore } from '@kcore/store'

/**
 * A fingerprint of the stored snapshots (count and newest `ingested_at` per IP version): it
 * changes whenever a snapshot is added, replaced or removed, by this process or another.
 */
export async function dataStamp(store: KcoreStore): Promise<string> {
  const parts: string[] = []
  for (const version of ['ipv4', 'ipv6'] as const) {
    const snapshots = await store.snapshots(version)
    let newest = ''
    for (const s of snapshots) if (s.ingested_at > newest) newest = s.ingested_at
    parts.push(`${version}:${snapshots.length}:${newest}`)
  }
  return parts.join('|')
}
