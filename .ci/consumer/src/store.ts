// Audience 3: a researcher scripting against the store, on embedded PGlite or on PostgreSQL
// (DATABASE_URL), with a sample snapshot shipped in @kcore/service.
import { openDatabase } from '@kcore/db'
import { SAMPLE_DATA_DIR } from '@kcore/service'
import { createKcoreStore, ingestFile } from '@kcore/store'

// The environment passed on as it is (issue 45): unset variables are `undefined`, an empty
// DATABASE_URL means the embedded database.
const database = await openDatabase({
  url: process.env.DATABASE_URL,
  dataDir: process.env.KCORE_DATA_DIR,
})
try {
  const store = createKcoreStore(database)
  await store.migrate()
  const info = await ingestFile(store, `${SAMPLE_DATA_DIR}19980101.as-rel.txt.bz2`)
  const reader = await store.reader()
  // @ts-expect-error the IP version is 'ipv4' | 'ipv6', not any string
  await reader.trends('ipv5', [701]).catch(() => undefined)
  const { trends } = await reader.trends('ipv4', [701])
  const points = trends.get(701) ?? []
  if (info.asns < 3000 || points.length !== 1)
    throw new Error(`unexpected store answer: ${JSON.stringify({ info, points })}`)
  console.log(`store (${database.dialect}): ${info.asns} ASes; AS701 ${JSON.stringify(points[0])}`)
} finally {
  await database.close()
}
