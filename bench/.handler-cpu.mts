import { createHandler } from '@kcore/http-adapter'
import { readOnlyKcoreOptions } from './trend-history.ts'

const points = Array.from({ length: 460 }, (_, i) => Object.freeze({
  date: `${1986 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}-01`,
  shell_index: i % 40,
  max_shell_index: 80,
  normalized_shell_index: (i % 40) / 80,
}))
const store = {
  revision: async () => '7',
  trendView: async (_v: string, asns: number[]) => ({
    dateRange: { earliest: points[0]!.date, latest: points.at(-1)!.date },
    trends: new Map(asns.map((a) => [a, points])),
    known: new Set(asns),
  }),
} as never
const handler = createHandler({ kcore: { ...readOnlyKcoreOptions(store), responseCache: false }, explorer: false })
const N = Number(process.env.N ?? 20000)
for (let round = 0; round < 2; round++) {
  const t = performance.now()
  for (let i = 0; i < N; i++) {
    const res = await handler(new Request(`http://localhost/api/trends/${1000 + (i % 5000)}`))
    await res.arrayBuffer()
  }
  const ms = performance.now() - t
  console.log(`${N} requests: ${(ms / N * 1000).toFixed(1)} µs each`)
}
const t = performance.now()
for (let i = 0; i < N; i++) JSON.stringify({ asn: i, ip_version: 'ipv4', date_range: { start: 'a', end: 'b' }, trend_data: points })
console.log(`stringify alone: ${((performance.now() - t) / N * 1000).toFixed(1)} µs`)
