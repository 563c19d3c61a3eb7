// Run by pglite-exit.test.ts in a child process: opens PGlite (in a folder and in memory),
// runs a statement long enough that only its worker thread keeps the process alive meanwhile,
// then closes both (`close`) or leaves them open and idle (`idle`), and returns from the
// module: the process must then exit by itself.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { openPgliteDatabase } from '../src/index.js'

const mode = process.argv[2]
const dir = await mkdtemp(join(tmpdir(), 'kcore-exit-'))
const folder = await openPgliteDatabase(join(dir, 'data'))
const memory = await openPgliteDatabase()
for (const database of [folder, memory]) {
  const { rows } = await sql<{ n: number }>`
    select count(*) as n from generate_series(1, 3000000)`.execute(database.db)
  console.log(`counted ${rows[0]!.n}`)
}
if (mode === 'close') {
  await folder.close()
  await memory.close()
  await rm(dir, { recursive: true, force: true })
}
console.log('done')
