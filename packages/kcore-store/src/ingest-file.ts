import { createHash } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import { basename } from 'node:path'
import { decomposeToLinksInWorker, type IpVersion, parseSnapshotFileName } from '@kcore/engine'
import { assertCalendarDate } from './calendar-date.js'
import type { KcoreStore } from './kcore-store-interface.js'
import type { NewSnapshot } from './kcore-store-types.js'
import { assertStorableSnapshot } from './snapshot-plausibility.js'
import { assertIpVersion } from './validate.js'

/** What {@link ingestFile} stored. */
export interface IngestFileResult {
  ipVersion: IpVersion
  date: string
  /** ASes in the snapshot. */
  asns: number
  /** Largest shell index of the snapshot. */
  maxShell: number
}

/**
 * Parses, decomposes (in a worker thread) and stores one local CAIDA file (plain, `.bz2` or `.gz`). The IP version
 * and date come from its CAIDA file name (`20240101.as-rel.txt.bz2`,
 * `20220601.as-rel.v6-stable.txt.bz2`, …) unless given; a stored snapshot of the same date is
 * replaced. The file name is stored as the snapshot's `source`, with its SHA-256 and mtime. A
 * file with no data line is refused, and so is one implausibly small next to its stored
 * neighbours unless `allowImplausible` is set (see `snapshot-plausibility.ts`).
 *
 * @throws {ImplausibleSnapshotError} before anything is stored.
 */
export async function ingestFile(
  store: KcoreStore,
  path: string,
  options: {
    ipVersion?: IpVersion
    date?: string
    allowImplausible?: boolean
    /** Refuse a file whose text is longer (`parseAsRel`'s cap). */
    maxDecompressedBytes?: number
  } = {},
): Promise<IngestFileResult> {
  const fileName = basename(path)
  const info = parseSnapshotFileName(fileName)
  const ipVersion = options.ipVersion ?? info?.ipVersion
  const date = options.date ?? info?.date
  if (!ipVersion || !date) {
    const missing = [!ipVersion && 'IP version', !date && 'date'].filter(Boolean).join(' and ')
    throw new Error(
      `cannot tell the ${missing} of ${path}: the name is not a CAIDA snapshot name ` +
        `(e.g. 20240101.as-rel.txt.bz2 or 20220601.as-rel.v6-stable.txt.bz2); give them explicitly`,
    )
  }
  assertIpVersion(ipVersion)
  assertCalendarDate(date, 'snapshot date')
  const [bytes, stats] = await Promise.all([readFile(path), stat(path)])
  // in a worker thread, like a refresh: a host's event loop keeps answering
  // The links come encoded from the worker: the request thread never holds the whole graph.
  const { decomposition, links, linkCount, metadata } = await decomposeToLinksInWorker(
    new Uint8Array(bytes),
    { maxDecompressedBytes: options.maxDecompressedBytes },
  )
  const snapshot: NewSnapshot = {
    ipVersion,
    date,
    decomposition,
    linkCount,
    metadata,
    links,
    source: fileName,
    provenance: {
      sha256: createHash('sha256').update(bytes).digest('hex'),
      fileModified: stats.mtime,
    },
  }
  await assertStorableSnapshot(store, snapshot, { allowImplausible: options.allowImplausible })
  await store.ingest(snapshot)
  return { ipVersion, date, asns: decomposition.asns.length, maxShell: decomposition.maxShell }
}
