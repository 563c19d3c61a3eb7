import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'

const DATE_OID = 1082
const INT8_OID = 20
/** PGlite's shared buffer pool (see `createPglite`). */
export const SHARED_BUFFERS = '32MB'

/** Where a PGlite engine starts from. */
export interface PgliteStart {
  /** Persisted here; in memory without one. */
  dataDir?: string | undefined
  /** A dump of a data directory (`dumpDataDir('none')`) to start from instead of `initdb`. */
  loadDataDir?: Blob | undefined
  /** PGlite's `pglite.wasm`, compiled (see {@link compilePgliteWasm}). */
  wasmModule?: WebAssembly.Module | undefined
}

/**
 * A PGlite engine as every kcore database runs it: `date` as `'YYYY-MM-DD'` and `int8` as
 * numbers (the values PostgreSQL's driver is set to give too), `pg_trgm` bundled so migrations
 * written for PostgreSQL with contrib run unchanged.
 */
export function createPglite({ dataDir, loadDataDir, wasmModule }: PgliteStart): PGlite {
  return new PGlite({
    ...(wasmModule ? { pgliteWasmModule: wasmModule } : {}),
    ...(dataDir ? { dataDir } : {}),
    ...(loadDataDir ? { loadDataDir } : {}),
    // New WAL segments sparse instead of zero-filled (PostgreSQL's own setting): starting, or
    // restarting after a failure, must switch to a new segment, which would otherwise need
    // 16 MB free, so a nearly full disk would refuse reads too. WAL records carry checksums;
    // zeros only reserved the space, and a write that finds none PANICs either way.
    // 32 MB of shared buffers rather than PostgreSQL's 128 MB: PGlite's shared memory comes
    // from Emscripten's mmap, which zero-fills it, so every buffer is resident from the start,
    // used or not; the cut is most of an idle engine's memory. Point queries read the same;
    // what no longer fits is read from the operating system's page cache (`bench/idle-memory.ts`
    // prints both). `wal_buffers` follows (1/32 of it).
    startParams: [
      ...PGlite.defaultStartParams,
      '-c',
      'wal_init_zero=off',
      '-c',
      `shared_buffers=${SHARED_BUFFERS}`,
    ],
    extensions: { pg_trgm },
    parsers: { [DATE_OID]: (v: string) => v, [INT8_OID]: (v: string) => Number(v) },
  })
}

/**
 * PGlite's engine compiled: the file PGlite itself would compile on every start in a new
 * thread (it caches the module per thread only).
 */
export async function compilePgliteWasm(): Promise<WebAssembly.Module> {
  const { readFile } = await import('node:fs/promises')
  const wasm = new URL('./pglite.wasm', import.meta.resolve('@electric-sql/pglite'))
  return WebAssembly.compile(await readFile(wasm))
}
