// Run by worker-flags.slow.full.test.ts as `node --import tsx <this file>`: a TypeScript script that
// opens the embedded database of the built package, as a researcher's script would.
import { openDatabase } from '@kcore/db'

const database = await openDatabase({})
const answer: boolean = await database.ping()
console.log(`ping ${answer}`)
await database.close()
