import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import type { ShellListOptions, ShellPage, ShellRow } from './kcore-store-types.js'
import { normalizedShell } from './normalized-shell.js'
import { integerOption } from './query-options.js'
import { querySnapshot } from './query-snapshots.js'
import { type KcoreSchema, shellTable } from './schema.js'

/** Rows per keyset page unless asked otherwise. */
export const DEFAULT_PAGE_SIZE = 10_000

/**
 * A snapshot's shell list in keyset pages by ASN (`asn > last` … `limit n`, an index-only range
 * scan of `(date, asn) include (shell_index)`). PGlite has no server-side cursor, and on
 * PostgreSQL a cursor would pin a connection for as long as a slow client reads; a page is
 * one short query, so the connection goes back to the pool between pages.
 */
export async function* queryShellPages(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  date: string,
  options: ShellListOptions = {},
): AsyncGenerator<ShellPage> {
  const minShell = integerOption('minShell', options.minShell ?? 0, 0, Number.MAX_SAFE_INTEGER)
  const pageSize = integerOption('pageSize', options.pageSize ?? DEFAULT_PAGE_SIZE, 1, 100_000)
  const { max_shell_index: maxShell } = await querySnapshot(db, ipVersion, date)
  if (minShell > maxShell) return
  let after = -1
  for (;;) {
    const { rows } = await sql<{ asn: number | string; shell_index: number }>`
      select asn, shell_index from ${sql.table(shellTable(ipVersion))}
      where date = ${date}::date and asn > ${after}
        ${minShell > 0 ? sql`and shell_index >= ${minShell}` : sql``}
      order by asn limit ${pageSize}`.execute(db)
    if (rows.length === 0) return
    const asns = new Uint32Array(rows.length)
    const shells = new Uint32Array(rows.length)
    for (let i = 0; i < rows.length; i++) {
      asns[i] = Number(rows[i]!.asn)
      shells[i] = rows[i]!.shell_index
    }
    yield { asns, shells, maxShell }
    if (rows.length < pageSize) return
    after = asns[asns.length - 1]!
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
