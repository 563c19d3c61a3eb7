import type { IpVersion } from '../ip-version.js'
import { parseSnapshotFileName } from '../snapshot-file-name.js'
import type { SnapshotRef } from './snapshot-provider.js'

/**
 * The snapshots of one IP version among file names found in provider folders: one per date
 * (serial-1 before serial-2, then `.bz2` before `.gz` before plain), oldest first.
 */
export function selectSnapshots(
  folders: { url: URL; names: string[]; serial: 1 | 2 }[],
  ipVersion: IpVersion,
): SnapshotRef[] {
  const best = new Map<string, { ref: SnapshotRef; rank: number }>()
  for (const folder of folders) {
    for (const fileName of folder.names) {
      const info = parseSnapshotFileName(fileName)
      if (!info || info.ipVersion !== ipVersion || info.serial !== folder.serial) continue
      const rank =
        info.serial * 10 + (fileName.endsWith('.bz2') ? 0 : fileName.endsWith('.gz') ? 1 : 2)
      const current = best.get(info.date)
      if (current && current.rank <= rank) continue
      const url = new URL(encodeURIComponent(fileName), folder.url).href
      best.set(info.date, { ref: { ...info, fileName, url }, rank })
    }
  }
  return [...best.values()]
    .map((entry) => entry.ref)
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))
}
