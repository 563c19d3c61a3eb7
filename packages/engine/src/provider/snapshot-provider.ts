import type { IpVersion } from '../ip-version.js'
import type { SnapshotFileInfo } from '../snapshot-file-name.js'

/** One snapshot a provider offers. */
export interface SnapshotRef extends SnapshotFileInfo {
  /** The file name, e.g. `20130201.as-rel.txt.bz2`. */
  fileName: string
  /** Where it is downloaded from (`https://…` or `file:///…`). */
  url: string
}

/** One snapshot's bytes and what the provider says of the file. */
export interface SnapshotDownload {
  /** The raw (usually bz2) bytes as a web stream. */
  stream: ReadableStream<Uint8Array>
  /** The provider's `Last-Modified` (HTTP) or the file's mtime (local folder); null if unknown. */
  lastModified: Date | null
}

/** A source of CAIDA snapshots: the CAIDA web site, a mirror, or a local folder. */
export interface SnapshotProvider {
  /** Snapshots offered for one IP version, oldest first (one per date). */
  list(ipVersion: IpVersion, options?: { signal?: AbortSignal }): Promise<SnapshotRef[]>
  /** The raw (usually bz2) bytes of one snapshot as a web stream. */
  open(ref: SnapshotRef, options?: { signal?: AbortSignal }): Promise<ReadableStream<Uint8Array>>
  /**
   * {@link open} plus the file's modification time, for provenance. Optional so that a minimal
   * provider (a test double, a custom source) needs only `list` and `open`.
   */
  download?(ref: SnapshotRef, options?: { signal?: AbortSignal }): Promise<SnapshotDownload>
}

/** Configuration of {@link createProvider}. */
export interface ProviderOptions {
  /** `http(s)://…/` or `file:///…/` base holding `serial-1/` (and `serial-2/`). */
  baseUrl: string
  /** Per attempt: longest wait for the response headers or for the next body chunk. Default 60 000. */
  timeoutMs?: number
  /** Further attempts after a network error, timeout or 5xx (never after a 4xx). Default 3. */
  retries?: number
  /** Delay before the first retry, doubled for every further one. Default 1 000. */
  retryDelayMs?: number
  /** Also list `serial-2/` (IPv4 `YYYYMMDD.as-rel2.txt.bz2`); serial-1 wins on the same date. */
  serial2?: boolean
  /**
   * Refuse a file or listing larger than this many bytes, before holding more of it (default
   * {@link DEFAULT_MAX_DOWNLOAD_BYTES}): an endless or huge body fails at once, not retried.
   */
  maxDownloadBytes?: number
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch
}

/** CAIDA's public AS-relationship folder, the default provider. */
export const DEFAULT_PROVIDER_URL = 'https://publicdata.caida.org/datasets/as-relationships/'

/**
 * Default download cap: 64 MiB, ~34x the largest real snapshot file (the 2024 serial-2 file is
 * 1.9 MB of bzip2).
 */
export const DEFAULT_MAX_DOWNLOAD_BYTES = 64 * 1024 * 1024
