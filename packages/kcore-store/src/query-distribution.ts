import type { IpVersion } from '@kcore/engine'
import type { Distribution } from './kcore-store-types.js'
import { shellCounts } from './shell-blobs.js'
import type { ShellSource } from './stored-shells.js'

/** How many ASes each non-empty shell of a snapshot holds, ascending by shell index. */
export async function queryDistribution(
  load: ShellSource,
  ipVersion: IpVersion,
  date: string,
): Promise<Distribution> {
  const { snapshot, shells } = await load(ipVersion, date)
  const sizes = shellCounts(shells, snapshot.max_shell_index).map(([shell_index, count]) => ({
    shell_index,
    count,
  }))
  return {
    date,
    ip_version: ipVersion,
    max_shell_index: snapshot.max_shell_index,
    unique_asns: snapshot.unique_asns,
    link_count: snapshot.link_count,
    shells: sizes,
  }
}
