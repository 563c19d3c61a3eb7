import { cp, mkdir, mkdtemp, rename, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pgliteVersion } from './pglite-version.js'

/**
 * Fills `dataDir` (which must not exist yet) with an empty PGlite cluster, as `initdb` leaves
 * it, and returns it. PGlite's `initdb` costs seconds of CPU on every new data directory, which
 * a test of what a process does with its directory (ingest, serve, lock, crash) need not pay
 * each time: the cluster is made once per PGlite version in the system's temporary directory
 * and copied. A test whose subject is the first start on an empty directory gives the process
 * a path that does not exist instead.
 */
export async function emptyCluster(dataDir: string): Promise<string> {
  const from = await clusterTemplate()
  await mkdir(dataDir) // throws when it exists: a test's data are never mixed with a cluster
  await cp(from, dataDir, { recursive: true })
  return dataDir
}

let template: Promise<string> | undefined

/**
 * The template cluster's directory, made on first use: in a directory of its own, renamed into
 * place once closed, so a concurrent maker (Vitest runs files in several processes) never sees
 * half of one; the loser of the rename throws its copy away.
 */
function clusterTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = join(tmpdir(), `kcore-pglite-cluster-${pgliteVersion()}`)
    if (await stat(join(dir, 'PG_VERSION')).catch(() => undefined)) return dir
    const partial = await mkdtemp(`${dir}.partial-`)
    // Loaded here: a test that never asks for a cluster never loads PGlite on this thread.
    const { PGlite } = await import('@electric-sql/pglite')
    const pglite = await PGlite.create(join(partial, 'data'))
    await pglite.close()
    await rename(join(partial, 'data'), dir).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error
    })
    await rm(partial, { recursive: true, force: true })
    return dir
  })()
  return template
}
