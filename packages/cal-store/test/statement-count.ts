import type { Database } from '@kcore/db'
import type { KyselyPlugin } from 'kysely'
import { type CalStore, type CalStoreOptions, createCalStore } from '../src/index.js'

/**
 * A store over `database` whose statements are counted by a Kysely plugin (BEGIN and COMMIT
 * not included), and `cost(run)`: how many statements `run` sent. Round trips are most of a
 * list's or a write's time on this machine, so the cost tests pin their number.
 */
export function countingStore(database: Database, options: CalStoreOptions) {
  let statements = 0
  const counting: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      statements++
      return args.result
    },
  }
  const store: CalStore = createCalStore(
    { ...database, db: database.db.withPlugin(counting) },
    options,
  )
  async function cost(run: () => Promise<unknown>): Promise<number> {
    statements = 0
    await run()
    return statements
  }
  return { store, cost }
}
