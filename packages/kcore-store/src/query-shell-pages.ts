import type { IpVersion } from '@kcore/engine'
import type { ShellList, ShellListOptions, ShellPage, ShellRow } from './kcore-store-types.js'
import { normalizedShell } from './normalized-shell.js'
import { integerOption } from './query-options.js'
import type { ShellSource, StoredShells } from './stored-shells.js'

/** Rows per page unless asked otherwise. */
export const DEFAULT_PAGE_SIZE = 10_000

/** The validated options of a shell list. */
function listOptions(options: ShellListOptions) {
  return {
    minShell: integerOption('minShell', options.minShell ?? 0, 0, Number.MAX_SAFE_INTEGER),
    pageSize: integerOption('pageSize', options.pageSize ?? DEFAULT_PAGE_SIZE, 1, 100_000),
  }
}

/**
 * The pages of one decoded snapshot. They are cut from `stored`, which the generator holds
 * until it is done: whatever is written meanwhile, every page is of the content the list
 * started on, and no connection is held between pages. Each page is a copy (the decoded
 * snapshot is shared by the reads at its revision).
 */
async function* pagesOf(
  stored: StoredShells,
  minShell: number,
  pageSize: number,
): AsyncGenerator<ShellPage> {
  const maxShell = stored.snapshot.max_shell_index
  if (minShell > maxShell) return
  const { asns, shells } = stored
  let next = 0
  for (;;) {
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

/**
 * A snapshot's record, how many of its ASes have `shell_index >= minShell`, and its pages by
 * ASN, all of one read of the snapshot (see {@link pagesOf}).
 */
export async function queryShellList(
  load: ShellSource,
  ipVersion: IpVersion,
  date: string,
  options: ShellListOptions = {},
): Promise<ShellList> {
  const { minShell, pageSize } = listOptions(options)
  const stored = await load(ipVersion, date)
  let count = 0
  for (let i = 0; i < stored.shells.length; i++) if (stored.shells[i]! >= minShell) count++
  return { snapshot: stored.snapshot, count, pages: pagesOf(stored, minShell, pageSize) }
}

/** A snapshot's shell list in pages by ASN, of one read of the snapshot. */
export async function* queryShellPages(
  load: ShellSource,
  ipVersion: IpVersion,
  date: string,
  options: ShellListOptions = {},
): AsyncGenerator<ShellPage> {
  const { minShell, pageSize } = listOptions(options)
  yield* pagesOf(await load(ipVersion, date), minShell, pageSize)
}

/** {@link queryShellPages} one row object at a time. */
export async function* queryShells(
  load: ShellSource,
  ipVersion: IpVersion,
  date: string,
  options?: ShellListOptions,
): AsyncGenerator<ShellRow> {
  for await (const page of queryShellPages(load, ipVersion, date, options)) {
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
