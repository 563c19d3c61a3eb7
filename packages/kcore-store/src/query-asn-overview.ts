import type { IpVersion } from '@kcore/engine'
import type { AsRegistryEntry } from './as-registry/registry-entries.js'
import type { AsRegistryInfo } from './as-registry/stored-registry.js'
import { AsnNotFoundError } from './errors.js'
import type { AsnOverview, AsnVersionOverview, TrendView } from './kcore-store-types.js'
import { assertAsns } from './validate.js'

/** One version's part of {@link queryAsnOverview}: the AS's whole trend, summed up. */
function versionOverview(view: TrendView, asn: number): AsnVersionOverview | null {
  const points = view.trends.get(asn) ?? []
  const latest = points.at(-1)
  if (!latest) return null
  return {
    first_seen: points[0]!.date,
    last_seen: latest.date,
    snapshots: points.length,
    latest: { ...latest },
  }
}

/** Where {@link queryAsnOverview} reads. */
export interface OverviewSources {
  trends: (ipVersion: IpVersion, asns: number[]) => Promise<TrendView>
  entry: (asn: number) => Promise<AsRegistryEntry | null>
  registry: () => Promise<AsRegistryInfo | null>
}

/**
 * Where an AS appears in each IP version, from its whole trend in each (the reader's trend
 * read, so the read model when it is at the reader's revision), with what the AS registry says
 * of it; {@link AsnNotFoundError} when in no snapshot and not in the registry.
 */
export async function queryAsnOverview(
  sources: OverviewSources,
  asn: number,
): Promise<AsnOverview> {
  assertAsns([asn])
  const [ipv4, ipv6, entry, registry] = await Promise.all([
    sources.trends('ipv4', [asn]),
    sources.trends('ipv6', [asn]),
    sources.entry(asn),
    sources.registry(),
  ])
  const overview: AsnOverview = {
    asn,
    ipv4: versionOverview(ipv4, asn),
    ipv6: versionOverview(ipv6, asn),
    name: entry?.name ?? null,
    address_space: entry ? { ipv4: entry.ipv4, ipv6: entry.ipv6 } : null,
    registry: registry ? { source: registry.source, date: registry.date } : null,
  }
  if (!overview.ipv4 && !overview.ipv6 && !entry) throw new AsnNotFoundError(asn)
  return overview
}
