import {
  type CoreDecomposition,
  decodeGraphLinks,
  GRAPH_LINKS_VERSION,
  type IpVersion,
} from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import { assertCalendarDate } from './calendar-date.js'
import { SnapshotLinksNotStoredError, SnapshotNotFoundError } from './errors.js'
import type {
  DateRange,
  SnapshotGraph,
  SnapshotGraphEntry,
  SnapshotInfo,
} from './kcore-store-types.js'
import { isoUtc } from './query-snapshots.js'
import type { KcoreSchema } from './schema.js'
import { base64, decodeShells, fromBase64 } from './shell-blobs.js'
import { STAMP } from './stored-shells.js'
import { assertIpVersion } from './validate.js'

/** The snapshot record's columns (alias `n`), as a {@link SnapshotInfo}, and its stamp. */
const RECORD = sql`n.date::text as date, n.max_shell_index, n.unique_asns, n.link_count,
  n.source, ${isoUtc('n.ingested_at')} as ingested_at, n.source_url, n.serial::int as serial,
  n.sha256, ${isoUtc('n.file_modified')} as file_modified, n.engine_version, ${STAMP} as stamp`

/** Whether the links row (alias `l`) is there in the version this engine reads. */
const HAS_LINKS = sql<boolean>`coalesce(l.format_version = ${GRAPH_LINKS_VERSION}, false)`

type RecordRow = SnapshotInfo & { stamp: string }

/**
 * A stored snapshot's graph and shell indices, decoded: record, shells and links read in ONE
 * statement (one committed state: a replacement committing meanwhile is either wholly in or
 * wholly out). `stamp`, when given, reads the snapshot only while it still has that content.
 *
 * @returns `undefined` when the date is not stored (or no longer has `stamp`'s content);
 * `'links_not_stored'` when its links are not stored in the version this engine reads.
 */
async function readSnapshotGraph(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  date: string,
  stamp?: string,
): Promise<SnapshotGraph | 'links_not_stored' | undefined> {
  const { rows } = await sql<
    RecordRow & { asns: string; shells: string; has_links: boolean; links: string | null }
  >`select ${RECORD}, ${base64('s.asns')} as asns, ${base64('s.shells')} as shells,
      ${HAS_LINKS} as has_links,
      case when ${HAS_LINKS} then ${base64('l.links')} end as links
    from kcore_snapshot n
    join kcore_snapshot_shells s on s.ip_version = n.ip_version and s.date = n.date
    left join kcore_snapshot_links l on l.ip_version = n.ip_version and l.snapshot_date = n.date
    where n.ip_version = ${ipVersion} and n.date = ${date}::date
      ${stamp === undefined ? sql`` : sql`and ${STAMP} = ${stamp}`}`.execute(db)
  const row = rows[0]
  if (!row) return undefined
  const { asns, shells, has_links, links, stamp: rowStamp, ...snapshot } = row
  if (!has_links || links === null) return 'links_not_stored'
  const graph = decodeGraphLinks(fromBase64(links))
  const stored = decodeShells({ asns: fromBase64(asns), shells: fromBase64(shells) })
  // The stored shell indices are the graph's own (both ascending by ASN): `whatIf` need not
  // decompose the graph again. A mismatch would be a bug of the ingest; it is refused loudly.
  if (stored.asns.length !== graph.asns.length)
    throw new Error(
      `the stored ${ipVersion} snapshot of ${date} has ${stored.asns.length} ASes but its links ${graph.asns.length}`,
    )
  const decomposition: CoreDecomposition = {
    asns: stored.asns,
    shells: Uint32Array.from(stored.shells),
    maxShell: snapshot.max_shell_index,
  }
  return { snapshot, stamp: rowStamp, graph, decomposition }
}

/**
 * One stored snapshot's graph ({@link SnapshotGraph}).
 *
 * @throws {SnapshotNotFoundError} when the date is not stored;
 * {@link SnapshotLinksNotStoredError} when it was stored without its links (before 0010).
 */
export async function loadSnapshotGraph(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  date: string,
): Promise<SnapshotGraph> {
  assertIpVersion(ipVersion)
  assertCalendarDate(date, 'snapshot date')
  const found = await readSnapshotGraph(db, ipVersion, date)
  if (found === undefined) throw new SnapshotNotFoundError(ipVersion, date)
  if (found === 'links_not_stored') throw new SnapshotLinksNotStoredError(ipVersion, date)
  return found
}

/**
 * The stored snapshots of a version within `range` (inclusive), oldest first, each with its
 * graph, read one at a time as the caller asks for them (one graph in memory at once, no
 * connection held between them). The snapshots are those stored when the first is asked for:
 * one listed and then replaced or removed before its turn comes is reported `replaced`, never
 * read with its new content, so the set is consistent. Stops when `signal` aborts.
 */
export async function* loadSnapshotGraphs(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  range: DateRange = {},
  signal?: AbortSignal,
): AsyncGenerator<SnapshotGraphEntry> {
  assertIpVersion(ipVersion)
  if (range.start !== undefined) assertCalendarDate(range.start, 'start date')
  if (range.end !== undefined) assertCalendarDate(range.end, 'end date')
  const { rows } = await sql<RecordRow & { has_links: boolean }>`
    select ${RECORD}, ${HAS_LINKS} as has_links
    from kcore_snapshot n
    left join kcore_snapshot_links l on l.ip_version = n.ip_version and l.snapshot_date = n.date
    where n.ip_version = ${ipVersion}
      ${range.start === undefined ? sql`` : sql`and n.date >= ${range.start}::date`}
      ${range.end === undefined ? sql`` : sql`and n.date <= ${range.end}::date`}
    order by n.date`.execute(db)
  for (const { stamp, has_links, ...snapshot } of rows) {
    signal?.throwIfAborted()
    const { date } = snapshot
    if (!has_links) {
      yield { date, status: 'links_not_stored', snapshot }
      continue
    }
    const found = await readSnapshotGraph(db, ipVersion, date, stamp)
    if (found === undefined || found === 'links_not_stored')
      yield { date, status: 'replaced', snapshot }
    else yield { date, status: 'ok', ...found }
  }
}
