// Ingest of one full-size real snapshot (20240801 IPv4, ~77k ASes) into PostgreSQL and PGlite
// by the store (one row of two blobs since migration 0005; the row-table methods this compared
// went with the row tables), then trend reads over a synthetic full history
// (BENCH_HISTORY snapshots, default 460, sized like the real one: ~3k to ~77k ASes each).
//   pnpm bench:ingest
//   DATABASE_URL=postgres://... BENCH_ROUNDS=5 BENCH_HISTORY=460 pnpm bench:ingest
// PostgreSQL work happens in a throwaway database that is dropped at the end.
import { readFile } from 'node:fs/promises'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { type Database, openPgliteDatabase, openPostgresDatabase } from '@kcore/db'
import { decomposeSnapshot } from '@kcore/engine'
import { createKcoreStore, type KcoreStore } from '@kcore/store'
import { sql } from 'kysely'
import postgres from 'postgres'
import { intArray } from '../packages/kcore-store/src/asn.js'
import { encodeAsns, encodeShells, fenceOf } from '../packages/kcore-store/src/shell-blobs.js'

const caida = fileURLToPath(new URL('../../shared/data/caida/', import.meta.url))
const FILE = process.env.BENCH_FILE ?? '20240801.as-rel.txt.bz2'
const baseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const history = Number(process.env.BENCH_HISTORY ?? 460)

type Method = (database: Database, date: string) => Promise<void>

const load = os.loadavg()
console.log(
  `machine: ${os.cpus().length} CPUs, load average ${load.map((l) => l.toFixed(2)).join(' ')}`,
)
const started = performance.now()
const { graph, decomposition } = await decomposeSnapshot(
  new Uint8Array(await readFile(caida + FILE)),
)
console.log(
  `${FILE}: ${decomposition.asns.length} ASes, ${graph.linkCount} links, max shell ${decomposition.maxShell}` +
    ` (parse + decompose ${ms(performance.now() - started)})\n`,
)
const asns = Array.from(decomposition.asns)
const shells = Array.from(decomposition.shells)

let month = 0
const freshDates = (n: number) =>
  Array.from({ length: n }, () => {
    month++
    return `${2100 + Math.floor(month / 12)}-${String((month % 12) + 1).padStart(2, '0')}-01`
  })

async function benchEngine(label: string, database: Database, n: number) {
  console.log(`${label}:`)
  const store = createKcoreStore(database)
  await store.migrate()
  const methods: Record<string, Method> = {}
  // The store's own ingest (snapshot row, shell rows, known-ASN upkeep, one transaction) of a
  // new date, then of the same date again, which replaces it.
  let lastStoreDate = ''
  const ingest = (date: string) =>
    store.ingest({
      ipVersion: 'ipv4',
      date,
      decomposition,
      linkCount: graph.linkCount,
      metadata: graph.metadata,
      source: FILE,
    })
  methods['store.ingest, new date'] = (_db, date) => ingest((lastStoreDate = date))
  methods['store.ingest, replacing a stored date'] = () => ingest(lastStoreDate)

  // Rounds interleave the methods, so load from other processes hits them alike; round 0 is
  // a warm-up and not counted.
  const times: Record<string, number[]> = {}
  for (let round = 0; round <= n; round++) {
    for (const [name, method] of Object.entries(methods)) {
      const date = freshDates(1)[0]!
      const t = performance.now()
      await method(database, date)
      if (round > 0) (times[name] ??= []).push(performance.now() - t)
    }
  }
  const medians: Record<string, number> = {}
  for (const [name, list] of Object.entries(times)) {
    list.sort((a, b) => a - b)
    medians[name] = list[Math.floor(list.length / 2)]!
    console.log(
      `  ${name.padEnd(52)} median ${ms(medians[name]).padStart(8)}   min ${ms(list[0]!).padStart(8)}   (${list.length} runs)`,
    )
  }
  const fastest = Math.min(...Object.values(medians))
  console.log('  ratios to the fastest:')
  for (const [name, median] of Object.entries(medians))
    console.log(`    ${name.padEnd(50)} ${(median / fastest).toFixed(2)}x`)
  console.log()
  return store
}

async function benchHistory(database: Database, store: KcoreStore) {
  console.log(`PostgreSQL, trend query over a synthetic history of ${history} snapshots:`)
  const db = database.db
  await sql`truncate kcore_snapshot, kcore_snapshot_shells, kcore_known_asns`.execute(db)
  const base = '1980-01-01'
  await store.ingest({
    ipVersion: 'ipv4',
    date: base,
    decomposition,
    linkCount: graph.linkCount,
    source: FILE,
  })
  const t = performance.now()
  // The ASNs ascending with their shells, so snapshot i is a prefix (the smallest ASNs).
  const order = asns.map((_, i) => i).sort((x, y) => asns[x]! - asns[y]!)
  const sortedAsns = order.map((i) => asns[i]!)
  const sortedShells = order.map((i) => shells[i]!)
  for (let i = 1; i < history; i++) {
    // Snapshot i keeps the smallest ASNs, growing from ~4% to 100% of today's ASes like the real series.
    const size = Math.max(1, Math.round(asns.length * (0.04 + (0.96 * i) / (history - 1))))
    const date = `${1980 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}-01`
    const kept = sortedAsns.slice(0, size)
    const blobs = encodeShells(kept, sortedShells.slice(0, size))
    await db.transaction().execute(async (trx) => {
      await sql`insert into kcore_snapshot (ip_version, date, max_shell_index, unique_asns, link_count, source)
        values ('ipv4', ${date}::date, ${decomposition.maxShell}, ${size}, ${graph.linkCount}, 'synthetic')`.execute(
        trx,
      )
      await sql`insert into kcore_snapshot_shells (ip_version, date, asns, shells, fence)
        values ('ipv4', ${date}::date, ${blobs.asns}, ${blobs.shells},
          ${intArray(fenceOf(Uint32Array.from(kept)))})`.execute(trx)
    })
  }
  await sql`update kcore_known_asns set asns = ${encodeAsns(Uint32Array.from(sortedAsns))}
    where ip_version = 'ipv4'`.execute(db)
  await sql`update kcore_revision set revision = revision + 1`.execute(db)
  console.log(`  filled ${history} snapshots in ${ms(performance.now() - t)}`)

  const probe = [3356, 174, 13335]
  const hundred = asns.filter((_, i) => i % Math.floor(asns.length / 100) === 0).slice(0, 100)
  for (const [label, list] of [
    [`3 ASNs (${probe.join(', ')})`, probe],
    ['100 ASNs', hundred],
  ] as const) {
    const times: number[] = []
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now()
      await (await store.reader()).trends('ipv4', [...list])
      times.push(performance.now() - t0)
    }
    console.log(`  reader.trends, ${label}: median ${ms(times.sort((a, b) => a - b)[2]!)}`)
  }
  const t1 = performance.now()
  const summary = await (await store.reader()).summary()
  console.log(
    `  reader.summary(): ${ms(performance.now() - t1)} (total_asns ${summary.ipv4?.total_asns}, ${summary.ipv4?.snapshot_count} snapshots)`,
  )
  const t2 = performance.now()
  await store.ingest({
    ipVersion: 'ipv4',
    date: '2030-01-01',
    decomposition,
    linkCount: graph.linkCount,
    source: FILE,
  })
  console.log(`  store.ingest of a new date into the full history: ${ms(performance.now() - t2)}`)
  const t3 = performance.now()
  await store.ingest({
    ipVersion: 'ipv4',
    date: '2030-01-01',
    decomposition,
    linkCount: graph.linkCount,
    source: FILE,
  })
  console.log(`  store.ingest replacing that date (full history): ${ms(performance.now() - t3)}`)
}

function ms(value: number): string {
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(0)} ms`
}

// PostgreSQL
const dbName = `kcore_bench_${Date.now().toString(36)}`
const admin = postgres(baseUrl, { max: 1, onnotice: () => {} })
await admin.unsafe(`create database "${dbName}"`)
const url = new URL(baseUrl)
url.pathname = `/${dbName}`
const pg = openPostgresDatabase(url.toString())
try {
  const store = await benchEngine(`PostgreSQL (${baseUrl.replace(/\/\/[^@]*@/, '//')})`, pg, rounds)
  if (history > 1) await benchHistory(pg, store)
} finally {
  await pg.close()
  await admin.unsafe(`drop database if exists "${dbName}" with (force)`)
  await admin.end()
}
console.log()

// PGlite, in memory
const lite = await openPgliteDatabase()
try {
  await benchEngine('PGlite (in memory)', lite, Math.max(1, Math.min(rounds, 3)))
} finally {
  await lite.close()
}
console.log(
  `load average at the end: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
)
