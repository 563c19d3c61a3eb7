// Run by pglite-exit.test.ts in a child process: opens PGlite in a folder and in memory, runs a
// statement on each (while it runs, only its worker thread keeps the process alive), then
// closes each database or leaves it open and idle, as argv says (`<folder> <memory> <dir>`, each
// `close` or `idle`; `<dir>/data` holds an empty cluster), and returns from the module: the
// process must then exit by itself.
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { sql } from 'kysely'
import { openPgliteDatabase } from '../src/index.js'

const [folderMode, memoryMode, dir] = process.argv.slice(2) as [string, string, string]
const folder = await openPgliteDatabase(join(dir, 'data'))
const memory = await openPgliteDatabase()
for (const database of [folder, memory]) {
  // Any statement does: the process would end (exit code 13) while waiting for its answer if
  // nothing held it.
  const { rows } = await sql<{ n: number }>`
    select count(*) as n from generate_series(1, 300000)`.execute(database.db)
  console.log(`counted ${rows[0]!.n}`)
}
if (memoryMode === 'close') await memory.close()
if (folderMode === 'close') {
  await folder.close()
  await rm(dir, { recursive: true, force: true })
}
console.log('done')
