// What a hostile provider costs the thread that answers requests, beside the targets: the
// longest event-loop gap and the RSS growth while a sync refuses an endless body (at the 64 MiB
// download cap) and a bzip2 bomb of ~5 GB of text (at the 128 MiB decompressed cap). The test
// (packages/kcore-store/test/hostile-provider.slow.test.ts) asserts the refusals and that
// nothing is stored; the figures are here.
//   pnpm bench:hostile-provider   (embedded database, in memory)
import { readFile } from 'node:fs/promises'
import { openDatabase } from '@kcore/db'
import { createProvider } from '@kcore/engine'
import { createKcoreStore, syncFromProvider } from '@kcore/store'
import { FIXTURE, snapshotFileName, startFaultProvider } from '@kcore/store/testing'
import { bzip2Bomb } from '../packages/engine/test/bzip2-bomb.js'
import { watchEventLoop } from '../packages/engine/test/event-loop-watch.js'

const MiB = 1024 ** 2
const targets = { growthMiB: 512, endlessGapMs: 500, bombGapMs: 200 }

const database = await openDatabase({})
const store = createKcoreStore(database)
await store.migrate()
const name = snapshotFileName('ipv4', '2015-01-01')
const server = await startFaultProvider()
try {
  const cases = [
    { label: 'endless body', gapTarget: targets.endlessGapMs, fault: 'endless' as const },
    { label: 'bzip2 bomb', gapTarget: targets.bombGapMs, fault: undefined },
  ]
  for (const { label, gapTarget, fault } of cases) {
    server.offer(name, fault ? new Uint8Array(await readFile(FIXTURE)) : bzip2Bomb())
    if (fault) server.faults.set(name, fault)
    else server.faults.delete(name)
    const provider = createProvider({ baseUrl: server.url, retries: 0, timeoutMs: 60_000 })
    const { value, gap, growth } = await watchEventLoop(() =>
      syncFromProvider({ store, provider, ipVersions: ['ipv4'] }),
    )
    const refused = value.ipv4?.failures[0]?.error ?? 'NOT REFUSED'
    const mib = Math.round(growth / MiB)
    console.log(
      `${label}: ${refused.slice(0, 60)}…; loop gap ${Math.round(gap)} ms (target < ${gapTarget}: ${gap < gapTarget ? 'met' : 'missed'}); RSS growth ${mib} MiB (target < ${targets.growthMiB}: ${mib < targets.growthMiB ? 'met' : 'missed'})`,
    )
  }
} finally {
  await server.close()
  await database.close()
}
