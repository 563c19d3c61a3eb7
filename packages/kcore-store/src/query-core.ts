import type { IpVersion } from '@kcore/engine'
import type { CoreAnswer, CoreSelector } from './kcore-store-types.js'
import { integerOption, MAX_RESEARCH_LIMIT } from './query-options.js'
import { shellCounts } from './shell-blobs.js'
import type { ShellSource } from './stored-shells.js'

/**
 * The k-core of a snapshot (ASes with `shell_index >= k`, k defaulting to the maximum, so the
 * innermost core) or its top-N ASes by shell index (ties by ASN, `k` = the lowest among them).
 * A k above the maximum is an empty core, not an error. Read from the decoded snapshot (record
 * and shell indices of one committed state).
 */
export async function queryCore(
  load: ShellSource,
  ipVersion: IpVersion,
  date: string,
  select: CoreSelector = {},
): Promise<CoreAnswer> {
  const top = 'top' in select ? integerOption('top', select.top, 1, MAX_RESEARCH_LIMIT) : undefined
  const askedK =
    'k' in select && select.k !== undefined
      ? integerOption('k', select.k, 0, Number.MAX_SAFE_INTEGER)
      : undefined
  const stored = await load(ipVersion, date)
  const { asns, shells } = stored
  const maxShell = stored.snapshot.max_shell_index
  let k: number
  // Every AS with a shell index above `k`, and the first `atK` (lowest ASNs) of those at `k`.
  let atK = Number.POSITIVE_INFINITY
  if (top !== undefined) {
    // Down the non-empty shells until `top` ASes are reached (or all are taken).
    const counts = shellCounts(shells, maxShell)
    k = counts[0]?.[0] ?? 0
    let above = 0
    for (let i = counts.length - 1; i >= 0; i--) {
      const [shell, count] = counts[i]!
      if (above + count >= top) {
        k = shell
        atK = top - above
        break
      }
      above += count
    }
  } else k = askedK ?? maxShell
  const chosen: number[] = []
  if (k <= maxShell)
    for (let i = 0; i < asns.length; i++) {
      const shell = shells[i]!
      if (shell > k || (shell === k && atK-- > 0)) chosen.push(asns[i]!)
    }
  return {
    date,
    ip_version: ipVersion,
    k,
    max_shell_index: maxShell,
    count: chosen.length,
    asns: chosen,
  }
}
