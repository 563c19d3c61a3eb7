import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import { committedRead } from './committed-read.js'
import type { DateRange, TrendPoint, TrendView } from './kcore-store-types.js'
import { normalizedShell } from './normalized-shell.js'
import type { KcoreSchema } from './schema.js'
import {
  base64,
  decodeAsns,
  fromBase64,
  indexOfAsn,
  type ShellArray,
  unionAsns,
} from './shell-blobs.js'
import { loadStoredShells, STAMP } from './stored-shells.js'
import { transposeTile } from './transpose-tile.js'

/**
 * One stored snapshot as the model holds it: its decoded blobs (ascending ASNs and their shell
 * indices), as loaded and never changed.
 */
interface SnapshotColumn {
  date: string
  maxShell: number
  asns: Uint32Array
  shells: ShellArray
  /** The column's points by shell index, made on first use and shared (frozen) by every read. */
  points: TrendPoint[]
}

/**
 * One version's columns at a revision, in date order, transposed: a trend reads one AS across
 * every snapshot, so its bytes sit side by side (one byte per snapshot) instead of one lookup in
 * each column (460 of them per trend).
 */
interface VersionRows {
  columns: SnapshotColumn[]
  /** Every ASN of the columns, ascending: an AS's slot is its position here. */
  union: Uint32Array
  /**
   * `rows[slot * columns.length + i]` is the shell index + 1 of the slot's AS in `columns[i]`
   * (0: absent). One byte each: {@link WIDE} sends a shell index from 254 up to `wide`.
   */
  rows: Uint8Array
  /** Shell index + 1 by `slot * columns.length + i`, for the bytes marked {@link WIDE}. */
  wide: Map<number, number>
}

/** Slots transposed per tile: the tile's values (1,024 ASes by every column) stay in cache. */
const TILE = 1024

/**
 * The transposition of a version's columns over `union` (the version's known ASNs, read with
 * the listing, so every column's ASNs are in it; merged from the columns when it is missing or
 * does not hold them): tile by tile, each column's next ASNs placed in their slots by one walk.
 */
function toRows(columns: SnapshotColumn[], known: Uint32Array | undefined): VersionRows {
  const n = columns.length
  let union = known ?? new Uint32Array(0)
  if (!known || !columns.every((c) => c.asns.length === 0 || holds(union, c.asns))) {
    union = new Uint32Array(0)
    for (const column of columns) union = unionAsns(union, column.asns)
  }
  const rows = new Uint8Array(union.length * n)
  const wide = new Map<number, number>()
  const next = new Uint32Array(n)
  const tile = new Uint32Array(TILE * n)
  for (let from = 0; from < union.length; from += TILE) {
    const to = Math.min(from + TILE, union.length)
    transposeTile(columns, union, from, to, next, tile)
    // The tile's values are the rows' from `from * n` on, in the same order.
    const base = from * n
    for (let k = 0; k < (to - from) * n; k++) {
      const value = tile[k]!
      if (value === 0) continue
      if (value >= WIDE) wide.set(base + k, value)
      rows[base + k] = Math.min(value, WIDE)
    }
  }
  return { columns, union, rows, wide }
}

/** True when ascending `union` holds the ascending `asns` (first, last and size checked). */
function holds(union: Uint32Array, asns: Uint32Array): boolean {
  return (
    asns.length <= union.length &&
    indexOfAsn(union, asns[0]!) >= 0 &&
    indexOfAsn(union, asns[asns.length - 1]!) >= 0
  )
}

/** A stored snapshot as listed: `stamp` (its `ingested_at`) changes with every (re-)ingest. */
interface ListedSnapshot {
  ip_version: IpVersion
  date: string
  max_shell_index: number
  stamp: string
}

/** The byte of a shell index too large for one (its value is in the version's `wide`). */
const WIDE = 0xff

/**
 * Snapshots loaded by the step a read answered from SQL starts once it has its answer (their
 * blobs: up to ~0.5 MB a snapshot). Small, so the reads that come meanwhile (which on PGlite
 * queue behind its statements) wait little for it.
 */
const ADVANCE_BATCH = 4

/**
 * Snapshots loaded per statement by {@link catchUp} (reads waiting for the model, a host's
 * load at start). Bounded, because PGlite has one connection: a statement holds up every
 * other query while it runs.
 */
const CATCH_UP_BATCH = 64

/**
 * A compact in-memory copy of every stored shell index, for trend reads that never touch the
 * database: the decoded blobs of each stored snapshot (`kcore_snapshot_shells`, one row per
 * snapshot), and per version the same values transposed row by row, one byte per AS and
 * snapshot (rebuilt when a version's snapshots change, a fraction of a second for the whole
 * history).
 *
 * It answers only for the revision it was built at, so it is right across processes: the
 * caller reads the stored revision first and, when the model is behind, has it catch up. It
 * loads only snapshots it does not hold yet: a snapshot is identified by its version, date and
 * `ingested_at`, which every (re-)ingest sets, so a column never changes once loaded.
 */
export function createTrendReadModel(db: Kysely<KcoreSchema>) {
  /** Loaded columns by snapshot key, kept across revisions. */
  const columns = new Map<string, SnapshotColumn>()
  /** The columns of each version in date order, valid at `revision`. */
  let ready: { revision: string; byVersion: Map<IpVersion, VersionRows> } | undefined

  const keyOf = (r: { ip_version: IpVersion; date: string; stamp: string }) =>
    `${r.ip_version}|${r.date}|${r.stamp}`

  /**
   * Loads `rows` (one version) in one statement; false when one is no longer the one listed
   * (deleted or re-ingested since): the stamp is read with the blobs.
   */
  async function loadColumns(ipVersion: IpVersion, rows: ListedSnapshot[]): Promise<boolean> {
    const loaded = await loadStoredShells(
      db,
      ipVersion,
      rows.map((r) => r.date),
    )
    for (const row of rows) {
      const stored = loaded.get(row.date)
      if (stored?.stamp !== row.stamp) return false
      columns.set(keyOf(row), {
        date: row.date,
        maxShell: stored.snapshot.max_shell_index,
        asns: stored.asns,
        shells: stored.shells,
        points: [],
      })
    }
    return true
  }

  /**
   * One step of catching up: the revision and the snapshot list (one statement, so they agree),
   * then up to `size` missing snapshots (one statement). True when the model is at that
   * revision. No transaction spans the loads: a column is immutable for its snapshot's stamp.
   */
  async function step(size: number): Promise<boolean> {
    // The listing and, on the step that completes the model, each version's known ASNs (its
    // slots) from one committed state, so the slots hold every listed snapshot's ASNs.
    const { rows, known } = await committedRead(db, async (trx) => {
      const { rows } = await sql<ListedSnapshot & { revision: string }>`
        select r.revision::text as revision, n.ip_version, n.date::text as date,
          n.max_shell_index, ${STAMP} as stamp
        from kcore_revision r left join kcore_snapshot n on true
        order by n.ip_version, n.date`.execute(trx)
      const missing = rows.filter((r) => r.date !== null && !columns.has(keyOf(r))).length
      const known = new Map<IpVersion, Uint32Array>()
      if (missing <= size) {
        const { rows: blobs } = await sql<{ ip_version: IpVersion; asns: string }>`
          select ip_version, ${base64('asns')} as asns from kcore_known_asns`.execute(trx)
        for (const blob of blobs) known.set(blob.ip_version, decodeAsns(fromBase64(blob.asns)))
      }
      return { rows, known }
    })
    const revision = rows[0]?.revision
    if (revision === undefined) return true
    const listed = rows.filter((r) => r.date !== null)
    const wanted = new Set(listed.map(keyOf))
    for (const key of columns.keys()) if (!wanted.has(key)) columns.delete(key)
    const missing = listed.filter((r) => !columns.has(keyOf(r)))
    const batch = missing.slice(0, size)
    for (const version of new Set(batch.map((r) => r.ip_version))) {
      const rowsOf = batch.filter((r) => r.ip_version === version)
      // Changed since listed: the next step lists again.
      if (!(await loadColumns(version, rowsOf))) return false
    }
    if (missing.length > size) return false
    const listedByVersion = new Map<IpVersion, SnapshotColumn[]>()
    for (const row of listed) {
      const list = listedByVersion.get(row.ip_version) ?? []
      list.push(columns.get(keyOf(row))!)
      listedByVersion.set(row.ip_version, list)
    }
    // A version whose columns did not change keeps its rows.
    const byVersion = new Map<IpVersion, VersionRows>()
    for (const [version, list] of listedByVersion) {
      const before = ready?.byVersion.get(version)
      const same =
        before?.columns.length === list.length && before.columns.every((c, i) => c === list[i])
      byVersion.set(version, same ? before : toRows(list, known.get(version)))
    }
    ready = { revision, byVersion }
    return true
  }

  let stepping: Promise<boolean> | undefined

  function startStep(size: number): Promise<boolean> {
    stepping ??= step(size).finally(() => {
      stepping = undefined
    })
    return stepping
  }

  /**
   * Runs one catch-up step unless one is under way (then resolves at once); never rejects. A
   * read answered from SQL starts it after its answer, so the model advances with the reads.
   * One step, not a loop: a database closed meanwhile ends it at its next statement (the
   * rejection only delays the model), and nothing keeps loading once the reads stop.
   */
  function advance(): Promise<void> {
    if (stepping) return Promise.resolve()
    return startStep(ADVANCE_BATCH).then(
      () => {},
      () => {},
    )
  }

  /** Steps until the model is at the revision stored when the last step began. */
  async function catchUp(): Promise<void> {
    for (let done = false; !done; ) done = await startStep(CATCH_UP_BATCH)
  }

  return {
    /**
     * The view at `revision` from memory, or undefined when the model is not at that revision
     * (answer from SQL and call {@link advance}).
     */
    view(
      revision: string,
      ipVersion: IpVersion,
      asns: number[],
      range?: DateRange,
    ): TrendView | undefined {
      if (ready?.revision !== revision) return undefined
      const version = ready.byVersion.get(ipVersion)
      const list = version?.columns ?? []
      const n = list.length
      // The columns are in date order: the range is a span of them.
      const start = range?.start
      const end = range?.end
      const from = start === undefined ? 0 : firstIndex(list, (c) => c.date >= start)
      const to = end === undefined ? n : firstIndex(list, (c) => c.date > end)
      const trends = new Map<number, TrendPoint[]>()
      const known = new Set<number>()
      for (const asn of asns) {
        if (trends.has(asn)) continue
        const points: TrendPoint[] = []
        trends.set(asn, points)
        const slot = version ? indexOfAsn(version.union, asn) : -1
        if (!version || slot < 0) continue
        // Every slot is some column's AS: the AS is known.
        known.add(asn)
        const { rows, wide } = version
        const base = slot * n
        for (let i = from; i < to; i++) {
          let value = rows[base + i]!
          if (value === 0) continue
          const column = list[i]!
          if (value === WIDE) value = wide.get(base + i) ?? WIDE
          const shell = value - 1
          points.push((column.points[shell] ??= pointOf(column, shell)))
        }
      }
      const dateRange = list.length ? { earliest: list[0]!.date, latest: list.at(-1)!.date } : null
      return { dateRange, trends, known }
    },
    advance,
    catchUp,
  }
}

/** The first index of `list` (sorted so `test` is false, then true) where `test` holds. */
function firstIndex<T>(list: readonly T[], test: (item: T) => boolean): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (test(list[mid]!)) hi = mid
    else lo = mid + 1
  }
  return lo
}

/**
 * The (frozen) point of `shell` in `column`: every AS with that shell index in that snapshot
 * shares it, so a read allocates no points and callers may memoize what they derive from one.
 */
function pointOf(column: SnapshotColumn, shell: number): TrendPoint {
  return Object.freeze({
    date: column.date,
    shell_index: shell,
    max_shell_index: column.maxShell,
    normalized_shell_index: normalizedShell(shell, column.maxShell),
  })
}
