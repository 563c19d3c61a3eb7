// Scripting against the k-core store: an in-memory PGlite database, three sample CAIDA
// snapshots shipped with @kcore/service, and the shell-index trend of a few well-known networks.
//   npx tsx --conditions=source examples/store-script.ts
import { openDatabase } from '@kcore/db'
import { SAMPLE_DATA_DIR } from '@kcore/service'
import { createKcoreStore, ingestFile } from '@kcore/store'

const data = SAMPLE_DATA_DIR // ends with a slash
const database = await openDatabase({}) // no url, no dataDir: PGlite in memory
try {
  const store = createKcoreStore(database)
  await store.migrate()

  for (const file of [
    '20100101.as-rel.txt.bz2',
    '20150101.as-rel.txt.bz2',
    '20220601.as-rel.txt.bz2',
  ]) {
    const info = await ingestFile(store, data + file)
    console.log(`${file}: ${info.asns} ASes, max shell index ${info.maxShell}`)
  }

  const networks = {
    3356: 'Lumen',
    7018: 'AT&T',
    4134: 'China Telecom',
    2906: 'Netflix',
    714: 'Apple',
    13335: 'Cloudflare',
  }
  const reader = await store.reader()
  const { trends } = await reader.trends('ipv4', Object.keys(networks).map(Number))
  console.log('\nIPv4 shell index (normalized) per snapshot:')
  for (const [asn, points] of trends) {
    const name = networks[asn as keyof typeof networks]
    const series = points.map(
      (p) => `${p.date} ${p.shell_index} (${p.normalized_shell_index.toFixed(3)})`,
    )
    console.log(`  AS${asn} ${name}: ${series.join(', ') || 'no data'}`)
  }
  console.log('\nsummary:', JSON.stringify(await reader.summary()))
} finally {
  await database.close()
}
