import { readdir } from 'node:fs/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { launchChromium } from './chromium.js'
import { chartPoints, expectedPoints, expectedReference, openPage } from './explorer-page.js'
import { type SeededServer, startSeededServer } from './explorer-server.js'

// The explorer over the whole real serial-1 history (317 monthly snapshots, 1998-01 to 2024-08,
// ../shared/data/caida/history/), backfilled as `kcore backfill --provider-url file://…` does:
// the reference series holds one point per snapshot, and ASNs present since 1998 chart every
// month the API gives. Full level only: the backfill alone takes half a minute or more.
const HISTORY = fileURLToPath(new URL('../../../../shared/data/caida/history/', import.meta.url))

let server: SeededServer
let browser: Awaited<ReturnType<typeof launchChromium>>

beforeAll(async () => {
  server = await startSeededServer({ providerUrl: pathToFileURL(HISTORY).href })
  browser = await launchChromium()
}, 600_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

it('charts the whole real history: one point per snapshot, each AS as the API gives it', async () => {
  const files = (await readdir(`${HISTORY}serial-1`)).filter((f) => f.endsWith('.bz2'))
  const reference = await expectedReference(server.url)
  expect(reference).toHaveLength(files.length)
  expect(reference[0]?.[0]).toBe('1998-01-01')

  const asns = [701, 3356, 174]
  const page = await openPage(browser.context, server.url, `/?asns=${asns}&ip_version=ipv4`)
  const labels = [...asns.map((asn) => `AS${asn}`), 'max shell index']
  const held = await chartPoints(page, labels)
  const { ['max shell index']: shown, ...series } = held
  expect(shown).toEqual(reference)
  expect(series).toEqual(await expectedPoints(server.url, asns, { ip_version: 'ipv4' }))
  // AS701 is in every month of the history: 317 points, none dropped by the chart.
  expect(series.AS701).toHaveLength(files.length)
  const firstRender = await page.evaluate(() => document.documentElement.dataset.firstRenderMs)
  console.log(`explorer over ${files.length} snapshots: first render ${firstRender} ms`)
  await page.close()
}, 120_000)
