import type { ShellChange } from './api-types.js'

/** An AS of the snapshot that stays in it with another shell index. */
export interface ShellDrop {
  asn: number
  before: number
  after: number
}

/** The drops of a what-if answer, largest first, and what the table leaves out. */
export interface RankedDrops {
  /** The first `limit` of them. */
  shown: ShellDrop[]
  /** How many more there are beyond `shown`. */
  more: number
}

/**
 * Who drops, by the size of the drop (`before - after`, largest first; ties by ascending ASN,
 * so the order is the same on every run). Removed ASes (`after: null`) are the question, not
 * its answer, and ASes an added link brings in have no "before": both are left out and counted
 * in the answer's `counts`. A rise (an added link) sorts after every drop.
 */
export function rankDrops(changes: readonly ShellChange[], limit: number): RankedDrops {
  const drops: ShellDrop[] = []
  for (const { asn, before, after } of changes)
    if (before !== null && after !== null) drops.push({ asn, before, after })
  drops.sort((a, b) => b.before - b.after - (a.before - a.after) || a.asn - b.asn)
  return { shown: drops.slice(0, limit), more: Math.max(0, drops.length - limit) }
}
