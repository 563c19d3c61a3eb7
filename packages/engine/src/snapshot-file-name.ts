import type { IpVersion } from './ip-version.js'

/** What a CAIDA snapshot file name says. */
export interface SnapshotFileInfo {
  ipVersion: IpVersion
  /** `YYYY-MM-DD`. */
  date: string
  serial: 1 | 2
}

const pattern = /^(\d{4})(\d{2})(\d{2})\.as-rel(2)?(\.v6-stable)?\.txt(?:\.bz2|\.gz)?$/

/**
 * Reads a CAIDA AS-relationship file name: `YYYYMMDD.as-rel.txt.bz2` (IPv4, serial-1),
 * `YYYYMMDD.as-rel.v6-stable.txt.bz2` (IPv6, serial-1), `YYYYMMDD.as-rel2.txt.bz2` (IPv4,
 * serial-2); `.gz` or no compression suffix is accepted too. A path is fine (only the last
 * segment counts). `undefined` for anything else, including impossible dates.
 */
export function parseSnapshotFileName(name: string): SnapshotFileInfo | undefined {
  const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1)
  const match = pattern.exec(base)
  if (!match) return undefined
  const [, year, month, day, serial2, v6] = match
  if (serial2 && v6) return undefined
  const date = `${year}-${month}-${day}`
  const parsed = new Date(`${date}T00:00:00Z`)
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== date) return undefined
  return { ipVersion: v6 ? 'ipv6' : 'ipv4', date, serial: serial2 ? 2 : 1 }
}
