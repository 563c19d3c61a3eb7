// A k-core study from the stored data: for every stored snapshot of both IP versions, its
// k_max and the size of its innermost core; then the ten biggest risers of the latest year.
//   npx tsx --conditions=source examples/research-script.ts
// With DATABASE_URL (PostgreSQL) or KCORE_DATA_DIR (PGlite on disk) it reads that database as
// it is; otherwise it loads the sample files shipped with @kcore/service into an in-memory
// PGlite first.
import { readdir } from 'node:fs/promises'
import { openDatabase } from '@kcore/db'
import type { IpVersion } from '@kcore/engine'
import { SAMPLE_DATA_DIR } from '@kcore/service'
import { createKcoreStore, ingestFile } from '@kcore/store'

const url = process.env.DATABASE_URL
const dataDir = process.env.KCORE_DATA_DIR
const database = await openDatabase({ url, dataDir })
try {
  const store = createKcoreStore(database)
  await store.migrate()
  if (!url && !dataDir) {
    const data = SAMPLE_DATA_DIR // ends with a slash
    for (const file of (await readdir(data)).filter((f) => f.endsWith('.bz2')).sort())
      await ingestFile(store, data + file)
  }

  // Every read goes through a reader, at the data revision it was opened at.
  const reader = await store.reader()
  for (const version of ['ipv4', 'ipv6'] as IpVersion[]) {
    const snapshots = await reader.snapshots(version)
    console.log(`${version}: ${snapshots.length} snapshots`)
    for (const snapshot of snapshots) {
      const distribution = await reader.distribution(version, snapshot.date)
      const innermost = distribution.shells.at(-1)?.count ?? 0
      console.log(
        `  ${snapshot.date}  k_max ${snapshot.max_shell_index}  innermost core ${innermost} of ${snapshot.unique_asns} ASes`,
      )
    }
  }

  // The latest year: from the newest IPv4 snapshot a year (or more) before the latest one.
  const dates = await reader.storedDates('ipv4')
  const to = dates.at(-1)
  if (to) {
    const yearBefore = `${Number(to.slice(0, 4)) - 1}${to.slice(4)}`
    const from = dates.filter((d) => d <= yearBefore).at(-1) ?? dates[0]!
    const { risers } = await reader.movers('ipv4', from, to, { limit: 10 })
    console.log(`\nten biggest risers, ipv4 ${from} -> ${to} (normalized shell index):`)
    for (const r of risers)
      console.log(`  AS${r.asn}  ${r.from_shell} -> ${r.to_shell}  +${r.change.toFixed(3)}`)
  }
} finally {
  await database.close()
}
