import type { IpVersion } from '../ip-version.js'
import { bytesStream } from './bytes-stream.js'
import { directoryIndexFileNames } from './directory-index.js'
import { type FetchBytesOptions, fetchBody, fetchBytes } from './fetch-bytes.js'
import { selectSnapshots } from './select-snapshots.js'
import type { SnapshotProvider } from './snapshot-provider.js'

/**
 * A provider over HTTP(S): lists the directory-index pages of `serial-1/` (and `serial-2/`),
 * downloads with timeouts and retries. A snapshot is downloaded whole (a few MB of bz2) before
 * its stream is handed out, so a connection dropped mid-body is retried like any other failure.
 */
export function httpProvider(
  base: URL,
  options: Omit<FetchBytesOptions, 'signal'> & { serial2: boolean },
): SnapshotProvider {
  const serials: (1 | 2)[] = options.serial2 ? [1, 2] : [1]
  return {
    async list(ipVersion: IpVersion, { signal } = {}) {
      const folders = []
      // CAIDA's serial-2 folder holds IPv4 files only
      for (const serial of ipVersion === 'ipv4' ? serials : [1 as const]) {
        const url = new URL(`serial-${serial}/`, base)
        const html = new TextDecoder().decode(await fetchBytes(url.href, { ...options, signal }))
        folders.push({ url, names: directoryIndexFileNames(html), serial })
      }
      return selectSnapshots(folders, ipVersion)
    },
    async open(ref, { signal } = {}) {
      return bytesStream(await fetchBytes(ref.url, { ...options, signal }))
    },
    async download(ref, { signal } = {}) {
      const { bytes, lastModified } = await fetchBody(ref.url, { ...options, signal })
      return { stream: bytesStream(bytes), lastModified }
    },
  }
}
