import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import { SnapshotChangedError } from './errors.js'
import type { ShellListHead, ShellListOptions, ShellPage, ShellRow } from './kcore-store-types.js'
import { normalizedShell } from './normalized-shell.js'
import { integerOption } from './query-options.js'
import type { KcoreSchema } from './schema.js'
import { type ShellSource, STAMP } from './stored-shells.js'

/** Rows per keyset page unless asked otherwise. */
export const DEFAULT_PAGE_SIZE = 10_000

/** The record, the count and the stamp of a snapshot's shell list, in one committed state. */
export async function queryShellListHead(
  load: ShellSource,
  ipVersion: IpVersion,
  date: string,
  minShell = 0,
): Promise<ShellListHead> {
  const min = integerOption('minShell', minShell, 0, Number.MAX_SAFE_INTEGER)
  const { snapshot, stamp, shells } = await load(ipVersion, date)
  let count = 0
  for (let i = 0; i < shells.length; i++) if (shells[i]! >= min) count++
  return { snapshot, count, stamp }
}

/** The stamp of a stored snapshot's content now, or undefined when it is gone. */
async function stampNow(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  date: string,
): Promise<string | undefined> {
  const { rows } = await sql<{ stamp: string }>`select ${STAMP} as stamp from kcore_snapshot n
    where n.ip_version = ${ipVersion} and n.date = ${date}::date`.execute(db)
  return rows[0]?.stamp
}

/**
 * A snapshot's shell list in pages by ASN, cut from the decoded snapshot (one read of its blobs,
 * kept in the reader's memo), so no connection is held between pages and stopping early costs
 * nothing.
 *
 * Every page is of one content: before each page the snapshot's stamp is read again (one
 * primary-key row), and a stamp that is not the list's (`options.stamp`, else the one read with
 * the snapshot) throws {@link SnapshotChangedError}: a list that outlives a replacement stops
 * instead of being served as if it were current.
 */
export async function* queryShellPages(
  db: Kysely<KcoreSchema>,
  load: ShellSource,
  ipVersion: IpVersion,
  date: string,
  options: ShellListOptions = {},
): AsyncGenerator<ShellPage> {
  const minShell = integerOption('minShell', options.minShell ?? 0, 0, Number.MAX_SAFE_INTEGER)
  const pageSize = integerOption('pageSize', options.pageSize ?? DEFAULT_PAGE_SIZE, 1, 100_000)
  const stored = await load(ipVersion, date)
  const stamp = options.stamp ?? stored.stamp
  const maxShell = stored.snapshot.max_shell_index
  if (stored.stamp !== stamp) throw new SnapshotChangedError(ipVersion, date)
  if (minShell > maxShell) return
  const { asns, shells } = stored
  let next = 0
  for (;;) {
    if ((await stampNow(db, ipVersion, date)) !== stamp)
      throw new SnapshotChangedError(ipVersion, date)
    const pageAsns: number[] = []
    const pageShells: number[] = []
    for (; next < asns.length && pageAsns.length < pageSize; next++) {
      if (shells[next]! < minShell) continue
      pageAsns.push(asns[next]!)
      pageShells.push(shells[next]!)
    }
    if (pageAsns.length === 0) return
    yield { asns: Uint32Array.from(pageAsns), shells: Uint32Array.from(pageShells), maxShell }
    if (pageAsns.length < pageSize) return
  }
}

/** {@link queryShellPages} one row object at a time. */
export async function* queryShells(
  db: Kysely<KcoreSchema>,
  load: ShellSource,
  ipVersion: IpVersion,
  date: string,
  options?: ShellListOptions,
): AsyncGenerator<ShellRow> {
  for await (const page of queryShellPages(db, load, ipVersion, date, options)) {
    for (let i = 0; i < page.asns.length; i++) {
      const shell = page.shells[i]!
      yield {
        asn: page.asns[i]!,
        shell_index: shell,
        normalized_shell_index: normalizedShell(shell, page.maxShell),
      }
    }
  }
}
