import type { IpVersion } from '@kcore/engine'
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

/**
 * Where an AS appears in each IP version, from its whole trend in each (the reader's trend
 * read, so the read model when it is at the reader's revision); {@link AsnNotFoundError} when
 * in neither.
 */
export async function queryAsnOverview(
  trends: (ipVersion: IpVersion, asns: number[]) => Promise<TrendView>,
  asn: number,
): Promise<AsnOverview> {
  assertAsns([asn])
  const [ipv4, ipv6] = await Promise.all([trends('ipv4', [asn]), trends('ipv6', [asn])])
  const overview = { asn, ipv4: versionOverview(ipv4, asn), ipv6: versionOverview(ipv6, asn) }
  if (!overview.ipv4 && !overview.ipv6) throw new AsnNotFoundError(asn)
  return overview
}
