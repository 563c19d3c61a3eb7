import type { Database } from '@kcore/db'
import { decomposeSnapshot, type IpVersion } from '@kcore/engine'
import type { KcoreStore } from '../kcore-store-interface.js'
import type { Fault, FaultProviderServer } from './fault-provider-server.js'
import { countKnownAsns, shellPairs, storedShells } from './tables.js'

/** A file a {@link FaultProviderServer} offers: its date, its good bytes, the fault it starts with. */
export interface Offer {
  ipVersion: IpVersion
  date: string
  bytes: Uint8Array
  fault?: Fault
}

/** CAIDA's name of a snapshot file for a `YYYY-MM-DD` date. */
export const snapshotFileName = (ipVersion: IpVersion, date: string) =>
  `${date.replaceAll('-', '')}.as-rel${ipVersion === 'ipv6' ? '.v6-stable' : ''}.txt.bz2`

/** Puts every offer on the server under its CAIDA name, with its fault. */
export function offerSnapshots(server: FaultProviderServer, offers: Offer[]): void {
  for (const { ipVersion, date, bytes, fault } of offers) {
    const name = snapshotFileName(ipVersion, date)
    server.offer(name, bytes)
    if (fault) server.faults.set(name, fault)
  }
}

/** What one version holds: dates, each snapshot's figures and shells, the known-ASN count. */
export interface StoredVersion {
  dates: string[]
  snapshots: {
    date: string
    max_shell_index: number
    unique_asns: number
    link_count: number
    source: string | null
    shells: [number, number][]
  }[]
  knownAsns: number
}

/** {@link StoredVersion} as the store holds it. */
export async function storedVersion(
  store: KcoreStore,
  database: Database,
  ipVersion: IpVersion,
): Promise<StoredVersion> {
  const reader = await store.reader()
  const snapshots = await reader.snapshots(ipVersion)
  return {
    dates: await reader.storedDates(ipVersion),
    snapshots: await Promise.all(
      snapshots.map(async (s) => ({
        date: s.date,
        max_shell_index: s.max_shell_index,
        unique_asns: s.unique_asns,
        link_count: s.link_count,
        source: s.source,
        shells: await storedShells(database, ipVersion, s.date),
      })),
    ),
    knownAsns: await countKnownAsns(database, ipVersion),
  }
}

const decompositions = new WeakMap<Uint8Array, ReturnType<typeof decomposeSnapshot>>()

/**
 * {@link StoredVersion} a store must hold after taking exactly `offers` (whole, nothing else),
 * computed straight from the engine: no provider, no store.
 */
export async function expectedVersion(offers: Offer[]): Promise<StoredVersion> {
  const sorted = [...offers].sort((a, b) => a.date.localeCompare(b.date))
  const asns = new Set<number>()
  const snapshots = []
  for (const offer of sorted) {
    let pending = decompositions.get(offer.bytes)
    if (!pending) {
      pending = decomposeSnapshot(offer.bytes)
      decompositions.set(offer.bytes, pending)
    }
    const { graph, decomposition } = await pending
    for (const asn of decomposition.asns) asns.add(asn)
    snapshots.push({
      date: offer.date,
      max_shell_index: decomposition.maxShell,
      unique_asns: decomposition.asns.length,
      link_count: graph.linkCount,
      source: snapshotFileName(offer.ipVersion, offer.date),
      shells: shellPairs(decomposition),
    })
  }
  return { dates: sorted.map((o) => o.date), snapshots, knownAsns: asns.size }
}
