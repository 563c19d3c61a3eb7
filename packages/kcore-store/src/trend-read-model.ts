import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import { committedRead } from './committed-read.js'
import type { DateRange, TrendView } from './kcore-store-types.js'
import type { KcoreSchema } from './schema.js'
import { base64, decodeAsns, fromBase64 } from './shell-blobs.js'
import { loadStoredShells, STAMP } from './stored-shells.js'
import { rowsView, type SnapshotColumn, toRows, type VersionRows } from './trend-rows.js'

/** A stored snapshot as listed: `stamp` (its `ingested_at`) changes with every (re-)ingest. */
interface ListedSnapshot {
  ip_version: IpVersion
  date: string
  max_shell_index: number
  stamp: string
}

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
      byVersion.set(version, same ? before : await toRows(list, known.get(version)))
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
      return rowsView(ready.byVersion.get(ipVersion), asns, range)
    },
    advance,
    catchUp,
  }
}
