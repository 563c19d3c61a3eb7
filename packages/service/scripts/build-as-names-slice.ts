/**
 * Builds the AS-name slice the service imports on first start (`data/as-names/`), from the real
 * `@ip-location-db/asn` CSV files, so the embedded default has names without a network while
 * the repository stays small (the whole package is ~65 MB unpacked).
 *
 * Kept: every IPv4 and IPv6 row of the ASNs in the innermost shells of the sample snapshots
 * (`data/*.as-rel*.txt.bz2`, the ones the core, trends and explorer answers show first) and of
 * a list of well-known ASNs. Rows are copied unchanged (no name or range is corrected), so an
 * import of the slice gives those ASNs the same name and address space as an import of the
 * whole file.
 *
 *   npm pack @ip-location-db/asn --pack-destination /tmp && tar xzf /tmp/ip-location-db-asn-*.tgz -C /tmp
 *   pnpm --filter @kcore/service build:as-names /tmp/package
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { decomposeSnapshot, parseSnapshotFileName } from '@kcore/engine'

/** ASNs a reader looks for first (the tier-1 transit networks, the large content and cloud ones). */
const WELL_KNOWN = [
  174, 3356, 13335, 15169, 6939, 1299, 2914, 3257, 6453, 6762, 701, 7018, 3491, 6461, 16509, 8075,
  32934, 2497, 4637, 3320, 5511, 9002,
]
/** Shells kept per sample snapshot, counted from the innermost. */
const SHELLS = 2
/** Rows kept in all (both files): about 7 bytes each once sorted and gzipped. */
const ROW_BUDGET = 40_000
/** An ASN of the shells with more rows than this is left out (a well-known one never is). */
const HEAVY = 600
const DATA = fileURLToPath(new URL('../data/', import.meta.url))
const OUT = join(DATA, 'as-names')

const source = process.argv[2]
if (!source) throw new Error('usage: build-as-names-slice.ts DIR (the unpacked npm package)')
const pkg = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as {
  name: string
  version: string
}
// The package's version ends with the release's date and hour, YYYYMMDDHH.
const stamp = /\.(\d{4})(\d{2})(\d{2})\d{2}$/.exec(pkg.version)
if (!stamp) throw new Error(`no release date in version ${pkg.version}`)
const date = `${stamp[1]}-${stamp[2]}-${stamp[3]}`

// Rows per ASN of the whole release, and each file's rows.
const files = ['asn-ipv4.csv', 'asn-ipv6.csv'] as const
const rowsOf = new Map<number, number>()
const lines = new Map<string, { asn: number; line: string }[]>()
for (const file of files) {
  // The ASN is the third field; addresses never hold commas or quotes, so it is found plainly.
  const parsed = readFileSync(join(source, file), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => ({ asn: Number(line.split(',', 3)[2]), line }))
  for (const { asn } of parsed) rowsOf.set(asn, (rowsOf.get(asn) ?? 0) + 1)
  lines.set(file, parsed)
}

// Candidates best first: the well-known ASNs, then each sample snapshot's innermost shells,
// newest snapshot first, inner shell first.
const candidates: number[] = [...WELL_KNOWN]
const snapshots = readdirSync(DATA)
  .filter((name) => parseSnapshotFileName(name))
  .sort()
  .reverse()
for (const name of snapshots) {
  const { decomposition } = await decomposeSnapshot(readFileSync(join(DATA, name)))
  const { asns, shells, maxShell } = decomposition
  const inner = [...asns.keys()].filter((i) => shells[i]! > maxShell - SHELLS)
  inner.sort((a, b) => shells[b]! - shells[a]! || asns[a]! - asns[b]!)
  candidates.push(...inner.map((i) => asns[i]!))
}
const keep = new Set<number>()
let budget = ROW_BUDGET
const skipped = new Set<number>()
for (const asn of candidates) {
  const rows = rowsOf.get(asn) ?? 0
  if (keep.has(asn) || rows === 0) continue
  const wellKnown = WELL_KNOWN.includes(asn)
  if (!wellKnown && (rows > HEAVY || rows > budget)) {
    skipped.add(asn)
    continue
  }
  keep.add(asn)
  budget -= rows
}

const summary: Record<string, { rows: number; bytes: number }> = {}
for (const file of files) {
  // Sorted by ASN (then as the release orders them): an ASN's rows side by side compress best.
  const rows = lines
    .get(file)!
    .filter(({ asn }) => keep.has(asn))
    .sort((a, b) => a.asn - b.asn)
    .map(({ line }) => line)
  const gz = gzipSync(`ip_range_start,ip_range_end,asn,organisation\n${rows.join('\n')}\n`, {
    level: 9,
  })
  // A fixed header time, so rebuilding from the same release gives the same bytes.
  gz.writeUInt32LE(0, 4)
  writeFileSync(join(OUT, `${file}.gz`), gz)
  summary[file] = { rows: rows.length, bytes: gz.length }
}

const meta = {
  package: pkg.name,
  version: pkg.version,
  date,
  source: `${pkg.name}@${pkg.version} (slice)`,
  asns: keep.size,
  asns_left_out: [...skipped].filter((asn) => !keep.has(asn)).length,
  files: summary,
}
writeFileSync(join(OUT, 'slice.json'), `${JSON.stringify(meta, null, 2)}\n`)
console.log(meta)
