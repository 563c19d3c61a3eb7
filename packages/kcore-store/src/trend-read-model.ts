import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import type { DateRange, TrendPoint, TrendView } from './kcore-store-types.js'
import { normalizedShell } from './normalized-shell.js'
import { type KcoreSchema, shellTable } from './schema.js'

/**
 * The shell indices of one stored snapshot, in memory. `shells[slot]` is the shell index + 1 of
 * the AS in that slot of the model's ASN dictionary (0: absent from the snapshot; slots past
 * the end are absent too). One byte per AS: {@link WIDE} sends a shell index from 254 up to
 * `wide` (every column the same array type, so the read loop stays monomorphic).
 */
interface SnapshotColumn {
  date: string
  maxShell: number
  shells: Uint8Array
  /** Shell index + 1 by slot, for the slots marked {@link WIDE}. */
  wide: Map<number, number>
  /** The column's points by shell index, made on first use and shared (frozen) by every read. */
  points: TrendPoint[]
}

/**
 * One version's columns at a revision, in date order, with their bytes also laid out row by
 * row: a trend reads one AS across every snapshot, so its bytes sit side by side instead of one
 * per column (a cache miss each, 460 of them per trend).
 */
interface VersionRows {
  columns: SnapshotColumn[]
  /** `rows[slot * columns.length + i]` is `columns[i].shells[slot]`, for slots below `slotCount`. */
  rows: Uint8Array
  slotCount: number
}

/** Slots transposed per tile: the tile's rows (a few hundred KB) stay in cache while written. */
const TILE = 1024

function toRows(columns: SnapshotColumn[], slotCount: number): VersionRows {
  const n = columns.length
  const rows = new Uint8Array(slotCount * n)
  for (let from = 0; from < slotCount; from += TILE) {
    const to = Math.min(from + TILE, slotCount)
    for (let i = 0; i < n; i++) {
      const shells = columns[i]!.shells
      const end = Math.min(to, shells.length)
      for (let slot = from; slot < end; slot++) rows[slot * n + i] = shells[slot]!
    }
  }
  return { columns, rows, slotCount }
}

/** A stored snapshot as listed: `stamp` (its `ingested_at`) changes with every (re-)ingest. */
interface ListedSnapshot {
  ip_version: IpVersion
  date: string
  max_shell_index: number
  stamp: string
}

const STAMP = sql`extract(epoch from n.ingested_at)::text`

/** The byte of a shell index too large for one (its value is in the column's `wide`). */
const WIDE = 0xff

/**
 * Snapshots loaded per catch-up step (one statement each). Small, because PGlite has one
 * connection: a step holds up every other query while it loads.
 */
const BATCH = 4

/**
 * A compact in-memory copy of every stored shell index, for trend reads that never touch the
 * shell tables: one byte per AS and snapshot in a dense column per snapshot (460 monthly
 * snapshots of ~100k ASes: ~45 MB), indexed through one ASN → slot dictionary, and the same
 * bytes row by row per version for the reads (as much again, rebuilt in well under a second
 * when a version's columns change).
 *
 * It answers only for the revision it was built at, so it is right across processes: the
 * caller reads the stored revision first and falls back to SQL while the model is behind,
 * advancing it a few snapshots per read. It loads only snapshots it does not hold yet: a
 * snapshot is identified by its version, date and `ingested_at`, which every (re-)ingest sets,
 * so a column never changes once loaded.
 */
export function createTrendReadModel(db: Kysely<KcoreSchema>) {
  const slots = new Map<number, number>()
  /** Loaded columns by snapshot key, kept across revisions. */
  const columns = new Map<string, SnapshotColumn>()
  /** The columns of each version in date order, valid at `revision`. */
  let ready: { revision: string; byVersion: Map<IpVersion, VersionRows> } | undefined

  function slotOf(asn: number): number {
    let slot = slots.get(asn)
    if (slot === undefined) {
      slot = slots.size
      slots.set(asn, slot)
    }
    return slot
  }

  /**
   * One snapshot's column, or undefined when the snapshot is no longer the one listed (deleted
   * or re-ingested since): the snapshot row is re-checked in the same statement.
   */
  async function loadColumn(row: ListedSnapshot): Promise<SnapshotColumn | undefined> {
    // One text row per snapshot ("asn shell asn shell ..."): a single message to parse instead
    // of one per AS, several times faster through either driver.
    const { rows } = await sql<{ pairs: string | null }>`
      select string_agg(s.asn::text || ' ' || s.shell_index::text, ' ') as pairs
      from kcore_snapshot n
      left join ${sql.table(shellTable(row.ip_version))} s on s.date = n.date
      where n.ip_version = ${row.ip_version} and n.date = ${row.date}::date
        and ${STAMP} = ${row.stamp}
      group by n.date`.execute(db)
    if (rows.length === 0) return undefined
    const numbers = rows[0]!.pairs ? rows[0]!.pairs.split(' ') : []
    const pairs: number[] = []
    for (let i = 0; i < numbers.length; i += 2) {
      pairs.push(slotOf(Number(numbers[i])), Number(numbers[i + 1]) + 1)
    }
    const shells = new Uint8Array(slots.size)
    const wide = new Map<number, number>()
    for (let i = 0; i < pairs.length; i += 2) {
      const slot = pairs[i]!
      const value = pairs[i + 1]!
      if (value >= WIDE) wide.set(slot, value)
      shells[slot] = Math.min(value, WIDE)
    }
    return { date: row.date, maxShell: row.max_shell_index, shells, wide, points: [] }
  }

  /**
   * One step of catching up: the revision and the snapshot list (one statement, so they agree),
   * then up to BATCH missing columns. True when the model is at that revision. No transaction
   * spans the step: a column is immutable for its snapshot's stamp, and closing the database
   * never waits on a model.
   */
  async function step(): Promise<boolean> {
    const { rows } = await sql<ListedSnapshot & { revision: string }>`
      select r.revision::text as revision, n.ip_version, n.date, n.max_shell_index,
        ${STAMP} as stamp
      from kcore_revision r left join kcore_snapshot n on true
      order by n.ip_version, n.date`.execute(db)
    const revision = rows[0]?.revision
    if (revision === undefined) return true
    const listed = rows.filter((r) => r.date !== null)
    const keyOf = (r: ListedSnapshot) => `${r.ip_version}|${r.date}|${r.stamp}`
    const wanted = new Set(listed.map(keyOf))
    for (const key of columns.keys()) if (!wanted.has(key)) columns.delete(key)
    const missing = listed.filter((r) => !columns.has(keyOf(r)))
    for (const row of missing.slice(0, BATCH)) {
      const column = await loadColumn(row)
      // Changed since listed: the next step lists again.
      if (!column) return false
      columns.set(keyOf(row), column)
    }
    if (missing.length > BATCH) return false
    const listedByVersion = new Map<IpVersion, SnapshotColumn[]>()
    for (const row of listed) {
      const list = listedByVersion.get(row.ip_version) ?? []
      list.push(columns.get(keyOf(row))!)
      listedByVersion.set(row.ip_version, list)
    }
    // A version whose columns did not change keeps its rows (slots added since are absent
    // from every one of its columns).
    const byVersion = new Map<IpVersion, VersionRows>()
    for (const [version, list] of listedByVersion) {
      const before = ready?.byVersion.get(version)
      const same =
        before?.columns.length === list.length && before.columns.every((c, i) => c === list[i])
      byVersion.set(version, same ? before : toRows(list, slots.size))
    }
    ready = { revision, byVersion }
    return true
  }

  let stepping: Promise<boolean> | undefined

  function startStep(): Promise<boolean> {
    stepping ??= step().finally(() => {
      stepping = undefined
    })
    return stepping
  }

  /**
   * Runs one catch-up step unless one is under way (then resolves at once). The caller awaits
   * it beside its SQL answer, so the model advances with the reads and no work is left running
   * when the last read returns (closing the database never races a model). Errors only delay
   * the model: the SQL path answers meanwhile.
   */
  function advance(): Promise<void> {
    if (stepping) return Promise.resolve()
    return startStep().then(
      () => {},
      () => {},
    )
  }

  /** Steps until the model is at the revision stored when the last step began. */
  async function catchUp(): Promise<void> {
    for (let done = false; !done; ) done = await startStep()
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
        const slot = slots.get(asn)
        if (!version || slot === undefined || slot >= version.slotCount) continue
        const { rows } = version
        const base = slot * n
        let stored = false
        for (let i = 0; i < n; i++) {
          let value = rows[base + i]!
          if (value === 0) continue
          stored = true
          if (i < from || i >= to) continue
          const column = list[i]!
          if (value === WIDE) value = column.wide.get(slot) ?? WIDE
          const shell = value - 1
          points.push((column.points[shell] ??= pointOf(column, shell)))
        }
        if (stored) known.add(asn)
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
