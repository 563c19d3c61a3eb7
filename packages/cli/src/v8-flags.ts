import { setFlagsFromString } from 'node:v8'

// Set as the `kcore` command starts (`bin.ts`), before any WebAssembly is compiled (PGlite's
// engine compiles when a database opens). The command runs PGlite's engine on V8's baseline
// WebAssembly compiler (Liftoff) only: the optimizing tier compiles PGlite's hot functions in
// the background while the server starts, and glibc keeps the memory those compilations
// freed, 50-70 MiB of an idle server (`pnpm bench:idle-server`).
// Ingest and backfill run as fast without it (`bench:backfill`: 1.22x the decode floor against
// 1.23x); an answer from SQL alone, while a trend model loads, is ~25% slower. The flag is
// process-wide, so it is the application's to set, never a library's: hosts that import the
// packages keep V8's defaults.
setFlagsFromString('--liftoff-only')
