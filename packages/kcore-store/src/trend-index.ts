import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import { intArray } from './asn.js'
import type { KcoreSchema } from './schema.js'
import {
  blobParam,
  fromBase64,
  littleEndian,
  packLittleEndian,
  type ShellArray,
  shellWidth,
  unionAsns,
} from './shell-blobs.js'
import { loadStoredShells, STAMP } from './stored-shells.js'
import { transposeTile } from './transpose-tile.js'

/**
 * The trend index: the stored shell indices transposed into one row per AS and segment
 * (migration 0007), so the first trend read after a start touches a handful of pages (the
 * segment listing, the AS's row) instead of three per snapshot (its fence, a slice of each
 * blob: ~1,400 pages for 460 snapshots, read from disk when the cache has dropped them). A
 * segment lists the snapshots it was made from with their content stamps; a snapshot
 * re-ingested since has another stamp, so its column is skipped and the fence search of
 * `query-trends.ts` answers for that date, as for every snapshot no segment holds.
 */

/** A stored snapshot of one version as the index sees it: its content stamp and maximum. */
export interface ListedSnapshot {
  date: string
  max_shell_index: number
  stamp: string
}

/** One snapshot column of a complete segment whose stamp still matches the stored one. */
export interface IndexedColumn {
  segment: number
  /** Its position in the segment's dates. */
  at: number
  /** How many dates the segment has (a row's width is its byte length over this). */
  dateCount: number
  date: string
  max_shell_index: number
}

/** What {@link readTrendIndex} read: the listing, the columns the index holds, `asns`' rows. */
export interface TrendIndexRead {
  /** The stored snapshots of the version, ascending by date. */
  listed: ListedSnapshot[]
  /**
   * Of them, those a complete segment holds with their current content: one column per date
   * (the oldest segment's, should two hold it), ascending by date.
   */
  columns: IndexedColumn[]
  /**
   * The rows of the asked ASNs in the segments of `columns`, decoded, by ASN and segment:
   * shell index + 1 per date of the segment (0: absent).
   */
  rows: Map<number, Map<number, ShellArray>>
}

/**
 * The listing of `ipVersion`'s stored snapshots, the index's complete segments and the rows of
 * `asns` in them, in one statement (one snapshot of the data, and one
 * round trip: in a new PGlite process each statement costs 10–30 ms before its code is warm,
 * and three of them were most of a first trend answer), matched here (on PGlite a join of the
 * segments' dates in SQL took longer than the reads). Every value comes as text; no part is
 * sorted in SQL.
 */
export async function readTrendIndex(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  asns: readonly number[],
): Promise<TrendIndexRead> {
  const { rows } = await sql<{ part: number; a: string | null; b: string; c: string }>`
    select 0 as part,
        string_agg(n.date::text || ' ' || n.max_shell_index::text || ' ' || ${STAMP}, ',') as a,
        null as b, null as c
      from kcore_snapshot n where n.ip_version = ${ipVersion}
    union all
    select 1, segment::text, dates::text, stamps::text from kcore_trend_segment
      where ip_version = ${ipVersion} and complete
    union all
    select 2, segment::text, asn::text, encode(shells, 'base64') from kcore_trend_row
      where ip_version = ${ipVersion} and asn = any(${intArray(asns)})`.execute(db)
  const listed: ListedSnapshot[] = []
  const segments: { segment: number; dates: string[]; stamps: string[] }[] = []
  const stored: { segment: number; asn: number; shells: string }[] = []
  for (const { part, a, b, c } of rows) {
    if (part === 0) {
      for (const entry of a ? a.split(',') : []) {
        const [date, max, stamp] = entry.split(' ') as [string, string, string]
        listed.push({ date, max_shell_index: Number(max), stamp })
      }
    } else if (part === 1)
      segments.push({ segment: Number(a), dates: listOf(b), stamps: listOf(c) })
    else stored.push({ segment: Number(a), asn: Number(b), shells: c })
  }
  listed.sort((x, y) => (x.date < y.date ? -1 : 1))
  segments.sort((x, y) => x.segment - y.segment)
  const columns = indexedColumns(listed, segments)
  const dateCounts = new Map(columns.map((c) => [c.segment, c.dateCount]))
  const byAsn = new Map<number, Map<number, ShellArray>>()
  for (const row of stored) {
    const count = dateCounts.get(row.segment)
    if (count === undefined) continue
    const bytes = fromBase64(row.shells)
    const width = bytes.length / count
    if (width !== 1 && width !== 2 && width !== 4)
      throw new RangeError(`trend row of ${bytes.length} bytes for ${count} dates`)
    const segments = byAsn.get(row.asn) ?? new Map<number, ShellArray>()
    segments.set(row.segment, littleEndian(bytes, width))
    byAsn.set(row.asn, segments)
  }
  return { listed, columns, rows: byAsn }
}

/** The elements of an array's text form of dates or integers (`{a,b}`: nothing is quoted). */
function listOf(text: string): string[] {
  return text.length > 2 ? text.slice(1, -1).split(',') : []
}

/** The columns of `segments` (by segment) whose stamp still matches the listed one. */
function indexedColumns(
  listed: readonly ListedSnapshot[],
  segments: readonly { segment: number; dates: string[]; stamps: string[] }[],
): IndexedColumn[] {
  const columns: IndexedColumn[] = []
  if (segments.length === 0) return columns
  const byDate = new Map(listed.map((n) => [n.date, n]))
  const taken = new Set<string>()
  for (const { segment, dates, stamps } of segments) {
    for (const [at, date] of dates.entries()) {
      const stored = byDate.get(date)
      if (!stored || stored.stamp !== stamps[at] || taken.has(date)) continue
      taken.add(date)
      columns.push({
        segment,
        at,
        dateCount: dates.length,
        date,
        max_shell_index: stored.max_shell_index,
      })
    }
  }
  columns.sort((a, b) => (a.date < b.date ? -1 : 1))
  return columns
}

/** `values` (shell index + 1, 0: absent) in the narrowest width holding them, as a shell blob. */
function encodeRow(values: Uint32Array): Uint8Array {
  let max = 0
  for (const v of values) if (v > max) max = v
  return packLittleEndian(values, shellWidth(max))
}

/** Options of {@link buildTrendSegment}. */
export interface IndexTrendsOptions {
  /** Fewest snapshots outside the index worth a segment (default 32): fewer are left to the fence search. */
  minSnapshots?: number
  /** Stops the build between batches; the unfinished segment is never read, and the next build drops it. */
  signal?: AbortSignal
}

/** Snapshots whose blobs one statement of the build loads. */
const LOAD_BATCH = 64
/** ASes transposed and written per statement. */
const TILE = 1024

/**
 * Adds one segment to the index of `ipVersion` from every stored snapshot no complete segment
 * holds (its current content), when there are at least `minSnapshots` of them; returns how
 * many it indexed. The caller holds the index's lock (one build at a time). Nothing here is
 * one transaction: the blobs are read by content stamp, the rows written a tile at a time
 * (on PGlite's one connection no statement holds reads up for long), and the segment is
 * marked complete last.
 */
export async function buildTrendSegment(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  options: IndexTrendsOptions = {},
): Promise<number> {
  const { minSnapshots = 32, signal } = options
  if (!Number.isSafeInteger(minSnapshots) || minSnapshots < 1)
    throw new RangeError(`minSnapshots must be a positive integer, got ${String(minSnapshots)}`)
  // A build that stopped half-way left its segment incomplete: never read, dropped here.
  await db
    .deleteFrom('kcore_trend_segment')
    .where('ip_version', '=', ipVersion)
    .where('complete', '=', false)
    .execute()
  const { listed, columns: indexed } = await readTrendIndex(db, ipVersion, [])
  const covered = new Set(indexed.map((c) => c.date))
  const dates = listed.map((r) => r.date).filter((d) => !covered.has(d))
  if (dates.length === 0 || dates.length < minSnapshots) return 0

  const columns: { date: string; stamp: string; asns: Uint32Array; shells: ShellArray }[] = []
  for (let i = 0; i < dates.length; i += LOAD_BATCH) {
    signal?.throwIfAborted()
    const loaded = await loadStoredShells(db, ipVersion, dates.slice(i, i + LOAD_BATCH))
    // Each column as loaded, with the stamp read with it (one deleted since is left out).
    for (const date of dates.slice(i, i + LOAD_BATCH)) {
      const stored = loaded.get(date)
      if (stored)
        columns.push({ date, stamp: stored.stamp, asns: stored.asns, shells: stored.shells })
    }
  }
  let union: Uint32Array = new Uint32Array(0)
  for (const [i, column] of columns.entries()) {
    union = unionAsns(union, column.asns)
    // A copy of the union per column: a serving process answers between every few.
    if (i % 16 === 15) await new Promise((resolve) => setImmediate(resolve))
  }

  const { segment } = await db
    .insertInto('kcore_trend_segment')
    .values({
      ip_version: ipVersion,
      dates: sql`${`{${columns.map((c) => c.date).join(',')}}`}::date[]`,
      stamps: sql`${`{${columns.map((c) => c.stamp).join(',')}}`}::bigint[]`,
    })
    .returning('segment')
    .executeTakeFirstOrThrow()

  const n = columns.length
  const next = new Uint32Array(n)
  const values = new Uint32Array(TILE * n)
  for (let from = 0; from < union.length; from += TILE) {
    signal?.throwIfAborted()
    const to = Math.min(from + TILE, union.length)
    transposeTile(columns, union, from, to, next, values)
    const rows = []
    for (let slot = from; slot < to; slot++) {
      const row = values.subarray((slot - from) * n, (slot - from + 1) * n)
      rows.push({
        ip_version: ipVersion,
        segment,
        asn: union[slot]!,
        shells: blobParam(encodeRow(row)),
      })
    }
    await db.insertInto('kcore_trend_row').values(rows).execute()
  }
  await db
    .updateTable('kcore_trend_segment')
    .set({ complete: true })
    .where('ip_version', '=', ipVersion)
    .where('segment', '=', segment)
    .execute()
  // The planner's statistics of the new rows (PGlite runs no autovacuum).
  await sql`analyze kcore_trend_segment, kcore_trend_row`.execute(db)
  return n
}
