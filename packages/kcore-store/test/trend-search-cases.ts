import { Buffer } from 'node:buffer'
import type { Database } from '@kcore/db'
import fc from 'fast-check'
import { sql } from 'kysely'
import { createKcoreStore, type KcoreStore, type TrendPoint, type TrendView } from '../src/index.js'
import { normalizedShell } from '../src/normalized-shell.js'
import { FENCE_STRIDE } from '../src/shell-blobs.js'
import { decomposition } from './helpers.js'

// Cases and expectations shared by the trend search's test files.

export const MAX_ASN = 2 ** 32 - 1
export const K = FENCE_STRIDE

/** One snapshot as ingested: `[asn, shell]` pairs, ascending by ASN. */
export type Pairs = [number, number][]

/** The trend points of `asn` over `snapshots` (date order), as the decompositions give them. */
export function expectedPoints(
  snapshots: { date: string; pairs: Pairs }[],
  asn: number,
): TrendPoint[] {
  const points: TrendPoint[] = []
  for (const { date, pairs } of snapshots) {
    const max = pairs.reduce((m, [, s]) => Math.max(m, s), 0)
    const hit = pairs.find(([a]) => a === asn)
    if (hit)
      points.push({
        date,
        shell_index: hit[1],
        max_shell_index: max,
        normalized_shell_index: normalizedShell(hit[1], max),
      })
  }
  return points
}

/**
 * The ASNs whose four bytes straddle the stored ASNs at `p` and `p + 1` (the blob's bytes at
 * offsets 1, 2 and 3 past `p`'s): a byte search finds them off the 4-byte boundaries.
 */
export function straddling(asns: number[], p: number): number[] {
  const bytes = Buffer.alloc(8)
  bytes.writeUInt32LE(asns[p]!, 0)
  bytes.writeUInt32LE(asns[p + 1]!, 4)
  return [1, 2, 3].map((offset) => bytes.readUInt32LE(offset))
}

/**
 * ASNs at and around every block edge of each snapshot (the fence's entries, the ones before
 * them, the next value up and down), the first and last, the values just outside them, both
 * ends of the ASN range, and ones spelled by the bytes of two stored neighbours (at the edges
 * and every 17th position): where a fence search or a byte search goes wrong if it does.
 */
export function edgeAsns(snapshots: { pairs: Pairs }[]): number[] {
  const out = new Set<number>([0, 1, MAX_ASN - 1, MAX_ASN])
  for (const { pairs } of snapshots) {
    const asns = pairs.map(([a]) => a)
    const at = new Set<number>()
    for (let i = 0; i <= asns.length; i += K)
      for (const p of [i - 1, i, i + 1, asns.length - 1]) if (p >= 0 && p < asns.length) at.add(p)
    for (const p of at)
      for (const d of [-1, 0, 1]) {
        const v = asns[p]! + d
        if (v >= 0 && v <= MAX_ASN) out.add(v)
      }
    for (let p = 0; p + 1 < asns.length; p++)
      if (at.has(p) || p % 17 === 0) for (const v of straddling(asns, p)) out.add(v)
  }
  return [...out]
}

/** The ASNs of `view` as `[asn, points, known]`, for a comparison that names the ASN. */
export const entries = (view: TrendView) =>
  [...view.trends].map(([asn, points]) => [asn, points, view.known.has(asn)] as const)

// Sizes at the stride's edges (0 to three blocks and a bit), ASNs dense (shared between
// snapshots, whole blocks of neighbours) or anywhere up to 2^32 - 1, shells of one, two or
// four bytes.
export const size = fc.oneof(
  fc.constantFrom(0, 1, 2, K - 1, K, K + 1, 2 * K - 1, 2 * K, 2 * K + 1, 3 * K + 7),
  fc.integer({ min: 0, max: 4 * K }),
)
export const asn = fc.oneof(
  fc.integer({ min: 0, max: 3 * K }),
  fc.integer({ min: 0, max: 20 * K }),
  fc.constantFrom(0, 1, 65_535, 65_536, MAX_ASN - 1, MAX_ASN),
  fc.integer({ min: 0, max: MAX_ASN }),
)
export const snapshot = fc
  .tuple(size, fc.constantFrom(5, 300, 70_000))
  .chain(([n, maxShell]) =>
    fc.tuple(
      fc.uniqueArray(asn, { minLength: n, maxLength: n }),
      fc.array(fc.integer({ min: 0, max: maxShell }), { minLength: n, maxLength: n }),
    ),
  )
  .map(([asns, shells]): Pairs => {
    const pairs = asns.map((a, i): [number, number] => [a, shells[i]!])
    return pairs.sort((a, b) => a[0] - b[0])
  })
export const DATES = ['1998-01-01', '2004-02-29', '2013-01-01', '2024-08-01']

/** Stores `pairs` as the IPv4 snapshot of `date` (one link per AS). */
export function ingestPairs(store: KcoreStore, date: string, pairs: Pairs) {
  return store.ingest({
    ipVersion: 'ipv4',
    date,
    decomposition: decomposition(pairs),
    linkCount: pairs.length,
  })
}

/**
 * What {@link entries} of a view of `asns` (each once) over `stored` must be: the points in
 * `range`, and whether any snapshot has the AS.
 */
export function expectedEntries(
  stored: { date: string; pairs: Pairs }[],
  asns: number[],
  range?: { start: string; end: string },
) {
  return [...new Set(asns)].map((a) => {
    const points = expectedPoints(stored, a)
    const shown = range
      ? points.filter((p) => p.date >= range.start && p.date <= range.end)
      : points
    return [a, shown, points.length > 0] as const
  })
}

/** Ingests `list` as IPv4 snapshots of DATES (in order), one IPv6 snapshot of the first. */
export async function ingestAll(database: Database, list: Pairs[]) {
  const store = createKcoreStore(database, { trendReadModel: false })
  const stored = list.map((pairs, i) => ({ date: DATES[i]!, pairs }))
  for (const { date, pairs } of stored) await ingestPairs(store, date, pairs)
  await store.ingest({
    ipVersion: 'ipv6',
    date: DATES[0]!,
    decomposition: decomposition([[list[0]![0]?.[0] ?? 7, 3]]),
    linkCount: 1,
  })
  return stored
}

/** The fence stored beside each IPv4 snapshot. */
export async function storedFences(database: Database) {
  const { rows } = await sql<{ date: string; fence: string[] | number[] }>`
    select date::text as date, fence from kcore_snapshot_shells where ip_version = 'ipv4'
    order by date`.execute(database.db)
  return rows.map((r) => ({ date: r.date, fence: r.fence.map(Number) }))
}
