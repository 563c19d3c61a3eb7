import { readdir, readFile, stat } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { IpVersion } from '../ip-version.js'
import { bytesStream } from './bytes-stream.js'
import { ProviderError, tooLarge } from './provider-error.js'
import { selectSnapshots } from './select-snapshots.js'
import type { SnapshotDownload, SnapshotProvider, SnapshotRef } from './snapshot-provider.js'

type Folder = { url: URL; names: string[]; serial: 1 | 2 }

/**
 * A provider over a local folder (`file:///…/`) with the same layout as CAIDA's: `serial-1/`
 * (and `serial-2/`). A folder without `serial-1/` is read flat (snapshot files directly in it).
 */
export function fileProvider(
  base: URL,
  options: { serial2: boolean; maxBytes: number },
): SnapshotProvider {
  return {
    async list(ipVersion: IpVersion, { signal } = {}) {
      signal?.throwIfAborted()
      const serial1 = new URL('serial-1/', base)
      let names = await readNames(serial1)
      if (names === undefined) {
        // flat mirror: every snapshot file in the base folder itself
        const flat = await readNames(base)
        if (flat === undefined) {
          throw new ProviderError(`provider folder not found: ${fileURLToPath(base)}`, base.href)
        }
        const folders: Folder[] = [{ url: base, names: flat, serial: 1 }]
        if (options.serial2) folders.push({ url: base, names: flat, serial: 2 })
        return selectSnapshots(folders, ipVersion)
      }
      const folders: Folder[] = [{ url: serial1, names, serial: 1 }]
      if (options.serial2) {
        const serial2 = new URL('serial-2/', base)
        names = await readNames(serial2)
        if (names === undefined) {
          throw new ProviderError(
            `provider folder not found: ${fileURLToPath(serial2)}`,
            serial2.href,
          )
        }
        folders.push({ url: serial2, names, serial: 2 })
      }
      signal?.throwIfAborted()
      return selectSnapshots(folders, ipVersion)
    },
    async open(ref, { signal } = {}) {
      return (await download(ref, options.maxBytes, signal)).stream
    },
    download: (ref, { signal } = {}) => download(ref, options.maxBytes, signal),
  }
}

/** Reads one snapshot file whole, with its mtime; a file larger than `maxBytes` is refused. */
async function download(
  ref: SnapshotRef,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<SnapshotDownload> {
  signal?.throwIfAborted()
  const path = fileURLToPath(ref.url)
  try {
    const stats = await stat(path)
    if (stats.size > maxBytes) throw tooLarge(ref.url, maxBytes)
    const bytes = await readFile(path, { signal })
    // a file still growing after the stat (or a device) is held to the same cap
    if (bytes.length > maxBytes) throw tooLarge(ref.url, maxBytes)
    return { stream: bytesStream(bytes), lastModified: stats.mtime }
  } catch (error) {
    if (error instanceof ProviderError) throw error
    if (signal?.aborted) throw signal.reason
    throw new ProviderError(`cannot read ${ref.url}: ${(error as Error).message}`, ref.url, {
      cause: error,
    })
  }
}

async function readNames(folder: URL): Promise<string[] | undefined> {
  try {
    return await readdir(fileURLToPath(folder))
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
    throw new ProviderError(
      `cannot read ${folder.href}: ${(error as Error).message}`,
      folder.href,
      {
        cause: error,
      },
    )
  }
}
