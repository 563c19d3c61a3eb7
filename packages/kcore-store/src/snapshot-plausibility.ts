import { KcoreStoreError } from './errors.js'
import type { KcoreStore } from './kcore-store-interface.js'
import type { NewSnapshot } from './kcore-store-types.js'

/**
 * A snapshot whose AS count is under this share of its stored neighbours' is refused: CAIDA
 * has never published such a file on purpose, so it is a truncated or broken download.
 */
export const MIN_NEIGHBOUR_SHARE = 0.25

/** Thrown before storing a snapshot that holds no data or is implausibly small; nothing is stored. */
export class ImplausibleSnapshotError extends KcoreStoreError {
  constructor(message: string) {
    super('implausible_snapshot', message)
    this.name = 'ImplausibleSnapshotError'
  }
}

/** The nearest stored snapshot on each side of a date (the date itself excluded). */
export interface Neighbours {
  older?: { date: string; asns: number }
  newer?: { date: string; asns: number }
}

/** Finds the nearest older and newer snapshot of `date` in a list of stored snapshots (any order). */
export function neighboursOf(
  stored: readonly { date: string; unique_asns: number }[],
  date: string,
): Neighbours {
  const result: Neighbours = {}
  for (const { date: d, unique_asns: asns } of stored) {
    if (d < date && (!result.older || d > result.older.date)) result.older = { date: d, asns }
    if (d > date && (!result.newer || d < result.newer.date)) result.newer = { date: d, asns }
  }
  return result
}

/**
 * Throws unless the snapshot holds data: an empty file, one of comments only, or one whose lines
 * give zero links decompresses to no data line, and storing it would hide that date for good.
 */
export function assertHasData(source: string, asnCount: number, linkCount: number): void {
  if (asnCount === 0 || linkCount === 0)
    throw new ImplausibleSnapshotError(
      `${source} holds no data line (${asnCount} ASes, ${linkCount} links); not stored`,
    )
}

/**
 * Throws when `asnCount` is under {@link MIN_NEIGHBOUR_SHARE} of BOTH stored neighbours' counts
 * (of the smaller one). Comparing with the smaller one keeps a backfill into a wide hole working
 * (a 1998 file between a stored 1998 and a stored 2024 snapshot is small next to 2024 only).
 */
export function assertPlausibleSize(source: string, asnCount: number, near: Neighbours): void {
  const sides = [near.older, near.newer].filter((n) => n !== undefined)
  if (sides.length === 0) return
  const smallest = sides.reduce((a, b) => (b.asns < a.asns ? b : a))
  // Integer form of asnCount < 0.25 * smallest.asns (no rounding at the boundary).
  if (asnCount * (1 / MIN_NEIGHBOUR_SHARE) < smallest.asns) {
    const counts = sides.map((n) => `${n.date}: ${n.asns}`).join(', ')
    throw new ImplausibleSnapshotError(
      `${source} has ${asnCount} ASes, under ${MIN_NEIGHBOUR_SHARE * 100}% of its stored ` +
        `neighbours' (${counts}); not stored`,
    )
  }
}

/** Options of {@link assertStorableSnapshot}. */
export interface PlausibilityOptions {
  /** Skips the neighbour comparison (never the no-data rule); `kcore ingest --allow-implausible`. */
  allowImplausible?: boolean
}

/**
 * The checks every file-to-store path runs before `store.ingest`: the snapshot holds data, and
 * its AS count is plausible next to the stored snapshots of the same version.
 *
 * @throws {ImplausibleSnapshotError} naming the source and the counts.
 */
export async function assertStorableSnapshot(
  store: KcoreStore,
  snapshot: NewSnapshot,
  options: PlausibilityOptions = {},
): Promise<void> {
  const source = snapshot.source ?? `${snapshot.ipVersion} ${snapshot.date}`
  const asnCount = snapshot.decomposition.asns.length
  assertHasData(source, asnCount, snapshot.linkCount)
  if (options.allowImplausible) return
  const stored = await (await store.reader()).snapshots(snapshot.ipVersion)
  assertPlausibleSize(source, asnCount, neighboursOf(stored, snapshot.date))
}
