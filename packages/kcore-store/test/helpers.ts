import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { CoreDecomposition } from '@kcore/engine'

export { FIXTURE, MALFORMED_FIXTURE } from '../src/testing/fixtures.js'
export {
  clearKcoreTables,
  countKnownAsns,
  countRows,
  fenceMismatches,
  rowsOfDate,
  shellPairs,
  storedAsnCount,
  storedShells,
} from '../src/testing/tables.js'
export { openStore, type TestStore } from '../src/testing/test-store.js'

/** The sample CAIDA files @kcore/service ships (`packages/service/data/`). */
export const EXAMPLES_DIR = fileURLToPath(new URL('../../service/data/', import.meta.url))

export { caidaDir as CAIDA_DIR } from '../../engine/test/caida-data.js'

/** A temporary folder of one test file. */
export interface TempDir {
  path: string
  remove(): Promise<void>
}

/** A fresh temporary folder under the OS temp dir. */
export async function tempDir(prefix: string): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix))
  return { path, remove: () => rm(path, { recursive: true, force: true }) }
}

/** A decomposition from `[asn, shell]` pairs (any order), as the engine would return it. */
export function decomposition(pairs: [number, number][]): CoreDecomposition {
  const sorted = [...pairs].sort((a, b) => a[0] - b[0])
  const asns = Uint32Array.from(sorted, ([asn]) => asn)
  const shells = Uint32Array.from(sorted, ([, shell]) => shell)
  return { asns, shells, maxShell: shells.reduce((m, s) => Math.max(m, s), 0) }
}

export { secondConnection } from '@kcore/db/testing'
