import type { IpVersion } from '@kcore/engine'
import type { Kysely } from 'kysely'
import { SnapshotNotFoundError } from './errors.js'
import type { CoreMover, Movers, MoversOptions, RankMover } from './kcore-store-types.js'
import { normalizedShell } from './normalized-shell.js'
import { integerOption, MAX_RESEARCH_LIMIT } from './query-options.js'
import type { KcoreSchema } from './schema.js'
import { loadStoredShells } from './stored-shells.js'

/**
 * Between two stored snapshots of a version: the ASes that entered or left the k-core (k
 * defaulting to the maximum of `to`; an AS absent from a snapshot is outside every core there),
 * and the largest rises and falls of `normalized_shell_index` among ASes present in both. Both
 * snapshots are read in one statement (one committed state) and joined by one walk of their
 * ascending ASNs.
 */
export async function queryMovers(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  from: string,
  to: string,
  options: MoversOptions = {},
): Promise<Movers> {
  const limit = integerOption('limit', options.limit ?? 100, 1, MAX_RESEARCH_LIMIT)
  const askedK =
    options.k === undefined ? undefined : integerOption('k', options.k, 0, Number.MAX_SAFE_INTEGER)
  const loaded = await loadStoredShells(db, ipVersion, [from, to])
  const before = loaded.get(from)
  if (!before) throw new SnapshotNotFoundError(ipVersion, from)
  const after = loaded.get(to)
  if (!after) throw new SnapshotNotFoundError(ipVersion, to)
  const maxFrom = before.snapshot.max_shell_index
  const maxTo = after.snapshot.max_shell_index
  const k = askedK ?? maxTo

  const entered: CoreMover[] = []
  const left: CoreMover[] = []
  const risers: RankMover[] = []
  const fallers: RankMover[] = []
  const a = before.asns
  const b = after.asns
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    const x = i < a.length ? a[i]! : Number.POSITIVE_INFINITY
    const y = j < b.length ? b[j]! : Number.POSITIVE_INFINITY
    const asn = Math.min(x, y)
    const fromShell = x === asn ? before.shells[i++]! : null
    const toShell = y === asn ? after.shells[j++]! : null
    const wasIn = (fromShell ?? -1) >= k
    const isIn = (toShell ?? -1) >= k
    if (wasIn !== isIn)
      (isIn ? entered : left).push({ asn, from_shell: fromShell, to_shell: toShell })
    if (fromShell === null || toShell === null) continue
    const change = normalizedShell(toShell, maxTo) - normalizedShell(fromShell, maxFrom)
    if (change > 0) risers.push({ asn, from_shell: fromShell, to_shell: toShell, change })
    else if (change < 0) fallers.push({ asn, from_shell: fromShell, to_shell: toShell, change })
  }
  // Entered and left come out in ASN order; the movers by change, ties by ASN.
  risers.sort((p, q) => q.change - p.change || p.asn - q.asn)
  fallers.sort((p, q) => p.change - q.change || p.asn - q.asn)
  return {
    ip_version: ipVersion,
    from,
    to,
    k,
    entered,
    left,
    risers: risers.slice(0, limit),
    fallers: fallers.slice(0, limit),
  }
}
