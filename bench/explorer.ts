// The trend explorer in Debian's Chromium (playwright-core) against a server seeded with
// packages/service/data on in-memory PGlite (the browser tests' setup): the bundle's size and the time
// from navigation start to the first chart drawn, with a cold cache (cleared before every load)
// and a warm one, for the empty view and for three ASNs.
//
//   pnpm bench:explorer                                   (BENCH_RUNS=15)
//   BENCH_SCREENSHOT=packages/explorer/docs/explorer.png pnpm bench:explorer   also writes the README's screenshot

import { gzipSync } from 'node:zlib'
import { loadPageAssets } from '@kcore/explorer'
import { launchChromium } from '../packages/http-adapter/test/chromium.js'
import { startSeededServer } from '../packages/http-adapter/test/explorer-server.js'

const runs = Number(process.env.BENCH_RUNS ?? 15)
const views = { empty: '/', 'three ASNs': '/?asns=3356,174,15169&ip_version=ipv4' }

const page = await loadPageAssets()
let gzipped = 0
for (const [path, asset] of page.assets) {
  const size = gzipSync(asset.body, { level: 9 }).length
  gzipped += size
  console.log(`${path}: ${asset.body.length} B, ${size} B gzipped`)
}
console.log(`bundle: ${(gzipped / 1024).toFixed(1)} KB gzipped in all (budget 120 KB)`)

const server = await startSeededServer()
const browser = await launchChromium()
try {
  const tab = await browser.context.newPage()
  const cdp = await browser.context.newCDPSession(tab)
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  for (const [name, path] of Object.entries(views)) {
    for (const cache of ['cold', 'warm'] as const) {
      const times: number[] = []
      for (let i = 0; i < runs; i++) {
        if (cache === 'cold') await cdp.send('Network.clearBrowserCache')
        await tab.goto(`${server.url}${path}`)
        await tab.waitForSelector('#trend-chart[data-state="ready"]')
        times.push(Number(await tab.evaluate(() => document.documentElement.dataset.firstRenderMs)))
      }
      console.log(
        `first render, ${name}, ${cache} cache: median ${median(times)} ms, min ${Math.min(...times)}, max ${Math.max(...times)} (${runs} loads)`,
      )
    }
  }
  const shot = process.env.BENCH_SCREENSHOT
  if (shot) {
    await tab.setViewportSize({ width: 960, height: 800 })
    await tab.goto(`${server.url}${views['three ASNs']}`)
    await tab.waitForSelector('#snapshot-chart[data-state="ready"]')
    await tab.screenshot({ path: shot, fullPage: true })
    console.log(`screenshot: ${shot}`)
  }
} finally {
  await browser.close()
  await server.close()
}
