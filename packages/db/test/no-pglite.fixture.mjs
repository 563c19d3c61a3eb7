// Run by lazy-pglite.test.ts in a child process: a resolve hook refuses PGlite to this thread,
// then the package is used as a PostgreSQL user would, then as a PGlite user, whose engine
// loads in its worker thread only. Prints what happened, one word per step.
import { register } from 'node:module'

register(
  `data:text/javascript,${encodeURIComponent(`
    export async function resolve(specifier, context, next) {
      if (specifier.startsWith('@electric-sql/pglite')) throw new Error('PGLITE_LOADED')
      return next(specifier, context)
    }`)}`,
)

const db = await import('@kcore/db')
const database = db.openPostgresDatabase('postgres://127.0.0.1:9/none')
await database.close()
console.log('postgres-without-pglite')
try {
  await import('@electric-sql/pglite')
  console.log('pglite-imported')
} catch (error) {
  // The hook is in force: a step above that loaded PGlite would have failed the same way.
  console.log(String(error?.message).includes('PGLITE_LOADED') ? 'pglite-refused' : String(error))
}
try {
  const embedded = await db.openPgliteDatabase()
  console.log((await embedded.ping()) ? 'pglite-in-worker-only' : 'pglite-not-answering')
  await embedded.close()
} catch (error) {
  console.log(String(error?.message))
}
