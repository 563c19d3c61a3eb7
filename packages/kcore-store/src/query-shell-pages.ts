import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import { committedRead } from './committed-read.js'
import { SnapshotChangedError } from './errors.js'
import type { ShellListHead, ShellListOptions, ShellPage, ShellRow } from './kcore-store-types.js'
import { normalizedShell } from './normalized-shell.js'
import { integerOption, MAX_INT4 } from './query-options.js'
import { querySnapshot } from './query-snapshots.js'
import { type KcoreSchema, shellTable } from './schema.js'

/** Rows per keyset page unless asked otherwise. */
export const DEFAULT_PAGE_SIZE = 10_000

/**
 * What a stored snapshot's content is identified by: its ingest time to the microsecond (a
 * replacement sets it anew, in the transaction that replaces the rows).
 */
const STAMP = sql<string>`(extract(epoch from ingested_at) * 1000000)::bigint::text`

/** The record, the row count and the stamp of a snapshot's shell list, in one committed state. */
export async function queryShellListHead(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  date: string,
  minShell = 0,
): Promise<ShellListHead> {
  // Shell indices are int4: a larger minimum counts the same (no) rows and stays in range.
  const min = Math.min(integerOption('minShell', minShell, 0, Number.MAX_SAFE_INTEGER), MAX_INT4)
  return committedRead(db, async (trx) => {
    const snapshot = await querySnapshot(trx, ipVersion, date)
    const { rows } = await sql<{ stamp: string; count: number }>`
      select ${STAMP} as stamp, (select count(*)::int from ${sql.table(shellTable(ipVersion))}
        where date = ${date}::date and shell_index >= ${min}) as count
      from kcore_snapshot where ip_version = ${ipVersion} and date = ${date}::date`.execute(trx)
    return { snapshot, count: rows[0]!.count, stamp: rows[0]!.stamp }
  })
}

/**
 * A snapshot's shell list in keyset pages by ASN (`asn > last` … `limit n`, an index-only range
 * scan of `(date, asn) include (shell_index)`). PGlite has no server-side cursor, and on
 * PostgreSQL a cursor would pin a connection for as long as a slow client reads; a page is
 * one short query, so the connection goes back to the pool between pages.
 *
 * Every page is of one content: each page statement reads the snapshot's stamp with its rows,
 * and a page whose stamp is not the list's (`options.stamp`, else the first page's) throws
 * {@link SnapshotChangedError} instead of mixing a replacement into the list.
 */
export async function* queryShellPages(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  date: string,
  options: ShellListOptions = {},
): AsyncGenerator<ShellPage> {
  const minShell = integerOption('minShell', options.minShell ?? 0, 0, Number.MAX_SAFE_INTEGER)
  const pageSize = integerOption('pageSize', options.pageSize ?? DEFAULT_PAGE_SIZE, 1, 100_000)
  const head = await queryShellListHead(db, ipVersion, date, minShell)
  const stamp = options.stamp ?? head.stamp
  const maxShell = head.snapshot.max_shell_index
  if (head.stamp !== stamp) throw new SnapshotChangedError(ipVersion, date)
  if (minShell > maxShell) return
  let after = -1
  for (;;) {
    // A left join from the record: one row even when no shell row is left, so the stamp is
    // always read (no row at all: the snapshot is gone).
    const { rows } = await sql<{
      stamp: string
      asn: number | string | null
      shell_index: number | null
    }>`select s.stamp, t.asn, t.shell_index
      from (select ${STAMP} as stamp from kcore_snapshot
            where ip_version = ${ipVersion} and date = ${date}::date) s
      left join lateral (
        select asn, shell_index from ${sql.table(shellTable(ipVersion))}
        where date = ${date}::date and asn > ${after}
          ${minShell > 0 ? sql`and shell_index >= ${minShell}` : sql``}
        order by asn limit ${pageSize}) t on true`.execute(db)
    if (rows[0]?.stamp !== stamp) throw new SnapshotChangedError(ipVersion, date)
    const found = rows[0]!.asn === null ? 0 : rows.length
    if (found === 0) return
    const asns = new Uint32Array(found)
    const shells = new Uint32Array(found)
    for (let i = 0; i < found; i++) {
      asns[i] = Number(rows[i]!.asn)
      shells[i] = rows[i]!.shell_index!
    }
    yield { asns, shells, maxShell }
    if (found < pageSize) return
    after = asns[found - 1]!
  }
}

/** {@link queryShellPages} one row object at a time. */
export async function* queryShells(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  date: string,
  options?: ShellListOptions,
): AsyncGenerator<ShellRow> {
  for await (const page of queryShellPages(db, ipVersion, date, options)) {
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
