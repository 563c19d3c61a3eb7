import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from './chromium.js'
import {
  api as apiOf,
  chartPoints,
  expectedPoints as expectedPointsOf,
  expectedReference,
  type Held,
  openPage as openPageOf,
} from './explorer-page.js'
import { type SeededServer, startSeededServer } from './explorer-server.js'

// The trend explorer in a real Chromium against a server seeded with packages/service/data. What the
// chart holds (explorer-page.ts) is compared with the API's trend_data. Needs the page built: pnpm --filter @kcore/explorer build.
const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/explorer/', import.meta.url))

let server: SeededServer
/** A server over a store with no snapshot. */
let empty: SeededServer
let browser: Awaited<ReturnType<typeof launchChromium>>
let context: BrowserContext

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true })
  console.log(`explorer screenshots: ${ARTIFACTS}`)
  // Side by side (seeding waits on PGlite's thread, the launch on Chromium's processes), all
  // settled before a failure is thrown, so afterAll closes whichever started.
  const started = await Promise.allSettled([
    startSeededServer(),
    startSeededServer({ seed: false }),
    launchChromium(),
  ])
  const [seeded, unseeded, launched] = started
  if (seeded.status === 'fulfilled') server = seeded.value
  if (unseeded.status === 'fulfilled') empty = unseeded.value
  if (launched.status === 'fulfilled') browser = launched.value
  for (const result of started) if (result.status === 'rejected') throw result.reason
  context = browser.context
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
  await empty?.close()
})

const withoutReference = (held: Held) => {
  const { ['max shell index']: _reference, ...rest } = held
  return rest
}

async function shot(page: Page, name: string) {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true })
}

const api = <T>(path: string) => apiOf<T>(server.url, path)
const expectedPoints = (asns: number[], query: Record<string, string>, normalized = false) =>
  expectedPointsOf(server.url, asns, query, normalized)
const openPage = (path = '/') => openPageOf(context, server.url, path)

const ASNS = [3356, 174, 15169]
const LABELS = ['AS3356', 'AS174', 'AS15169', 'max shell index']

describe('the trend explorer in Chromium', () => {
  it('charts typed ASNs with the API data, across IP versions, ranges and the normalized index', async () => {
    const page = await openPage()
    const firstRender = await page.evaluate(() => document.documentElement.dataset.firstRenderMs)
    console.log(`explorer first render (empty view): ${firstRender} ms after navigation start`)
    expect(await chartPoints(page, ['max shell index'])).toEqual({
      'max shell index': await expectedReference(server.url),
    })
    await shot(page, '1-empty')

    await page.fill('#asn-input', '3356, 174, 15169')
    await page.press('#asn-input', 'Enter')
    const ipv4 = await chartPoints(page, LABELS)
    expect(withoutReference(ipv4)).toEqual(await expectedPoints(ASNS, { ip_version: 'ipv4' }))
    expect(ipv4.AS3356?.length).toBeGreaterThan(1)
    expect(new URL(page.url()).search).toBe('?asns=3356,174,15169&ip_version=ipv4')
    await shot(page, '2-ipv4')

    await page.check('input[name="ip_version"][value="ipv6"]')
    await page.waitForURL(/ip_version=ipv6/)
    const ipv6 = await chartPoints(page, LABELS)
    expect(withoutReference(ipv6)).toEqual(await expectedPoints(ASNS, { ip_version: 'ipv6' }))
    expect(ipv6.AS3356?.length).toBeGreaterThan(0)
    await shot(page, '3-ipv6')

    await page.check('input[name="ip_version"][value="ipv4"]')
    await page.waitForURL(/ip_version=ipv4/)
    expect(await chartPoints(page, LABELS)).toEqual(ipv4)

    await page.fill('#start', '2005-01-01')
    await page.fill('#end', '2015-12-31')
    await page.waitForURL(/end=2015-12-31/)
    const ranged = await chartPoints(page, LABELS)
    const range = { ip_version: 'ipv4', start_date: '2005-01-01', end_date: '2015-12-31' }
    expect(withoutReference(ranged)).toEqual(await expectedPoints(ASNS, range))
    expect(ranged['max shell index']?.map(([date]) => date)).toEqual([
      '2005-01-01',
      '2010-01-01',
      '2015-01-01',
    ])
    await shot(page, '4-range')

    await page.check('#normalized')
    await page.waitForURL(/normalized=1/)
    const normalized = await chartPoints(page, LABELS)
    expect(withoutReference(normalized)).toEqual(await expectedPoints(ASNS, range, true))
    await shot(page, '5-normalized')

    // A link reproduces the view.
    const link = page.url()
    expect(new URL(link).search).toBe(
      '?asns=3356,174,15169&ip_version=ipv4&start=2005-01-01&end=2015-12-31&normalized=1',
    )
    const copy = await openPage(new URL(link).pathname + new URL(link).search)
    expect(await chartPoints(copy, LABELS)).toEqual(normalized)
    expect(await copy.inputValue('#start')).toBe('2005-01-01')
    expect(await copy.isChecked('#normalized')).toBe(true)
    await copy.close()

    // Back and forward walk the same views again.
    await page.goBack()
    await page.waitForURL((url) => !url.search.includes('normalized'))
    expect(await chartPoints(page, LABELS)).toEqual(ranged)
    expect(await page.isChecked('#normalized')).toBe(false)
    await page.goForward()
    await page.waitForURL(/normalized=1/)
    expect(await chartPoints(page, LABELS)).toEqual(normalized)
    await page.close()
  }, 120_000)

  it('exports exactly the API data as CSV, and the chart as a PNG', async () => {
    const page = await openPage('/?asns=3356,174,15169&ip_version=ipv4')
    await chartPoints(page, LABELS)
    const [csvDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#export-csv'),
    ])
    const csv = await readFile((await csvDownload.path()) as string, 'utf8')
    const [header, ...rows] = csv.trimEnd().split('\n')
    expect(header).toBe('date,AS3356,AS174,AS15169,max shell index')
    const snapshots = (
      await api<{ ipv4: { date: string; max_shell_index: number }[] }>(
        '/api/snapshots?ip_version=ipv4',
      )
    ).body.ipv4
    expect(rows.map((row) => row.split(',')[0])).toEqual(snapshots.map((s) => s.date))
    const expected = await expectedPoints(ASNS, { ip_version: 'ipv4' })
    ASNS.forEach((asn, column) => {
      const fromCsv = rows
        .map((row) => row.split(','))
        .filter((cells) => cells[column + 1] !== '')
        .map((cells) => [cells[0], Number(cells[column + 1])])
      expect(fromCsv).toEqual(expected[`AS${asn}`])
    })
    expect(rows.map((row) => Number(row.split(',')[4]))).toEqual(
      snapshots.map((s) => s.max_shell_index),
    )

    const [pngDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#export-png'),
    ])
    const png = await readFile((await pngDownload.path()) as string)
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    expect(png.length).toBeGreaterThan(2_000)
    await page.close()
  }, 60_000)

  it('shows API errors next to the inputs and keeps charting the rest', async () => {
    const page = await openPage('/?asns=3356&ip_version=ipv4')
    await chartPoints(page, ['AS3356', 'max shell index'])
    // 4294967295 is a valid ASN that no sample holds; 4294967296 is out of range.
    await page.fill('#asn-input', '4294967295 4294967296 banana')
    await page.press('#asn-input', 'Enter')
    const held = await chartPoints(page, ['AS3356', 'max shell index'])
    expect(withoutReference(held)).toEqual(await expectedPoints([3356], { ip_version: 'ipv4' }))
    const unknown = await api<{ error: string; message: string }>('/api/trends/4294967295')
    const outOfRange = await api<{ error: string; message: string }>('/api/trends/4294967296')
    expect([unknown.status, unknown.body.error]).toEqual([404, 'asn_not_found'])
    expect(outOfRange.status).toBe(400)
    const message = await page.textContent('#asn-error')
    expect(message).toContain('Not an ASN: banana.')
    expect(message).toContain(`AS4294967295: ${unknown.body.message}`)
    expect(message).toContain(`AS4294967296: ${outOfRange.body.message}`)
    expect(await page.inputValue('#asn-input')).toBe('banana')
    await shot(page, '6-unknown-asn')

    const bad = await openPage('/?asns=3356&start=2010-02-30')
    await chartPoints(bad, ['max shell index'])
    const badDate = await api<{ error: string; message: string }>(
      '/api/trends/3356?ip_version=ipv4&start_date=2010-02-30',
    )
    expect(badDate.status).toBe(400)
    expect(await bad.textContent('#date-error')).toBe(badDate.body.message)
    await shot(bad, '7-bad-date')

    const backwards = await openPage('/?asns=3356&start=2020-01-01&end=2010-01-01')
    await chartPoints(backwards, ['max shell index'])
    const reversed = await api<{ message: string }>(
      '/api/trends/3356?ip_version=ipv4&start_date=2020-01-01&end_date=2010-01-01',
    )
    expect(await backwards.textContent('#date-error')).toBe(reversed.body.message)
    await Promise.all([page.close(), bad.close(), backwards.close()])
  }, 60_000)

  it('keeps the unknown-ASN message while other input is refused', async () => {
    const page = await openPage('/?asns=3356,4294967295&ip_version=ipv4')
    await chartPoints(page, ['AS3356', 'max shell index'])
    await expect.poll(() => page.textContent('#asn-error')).toContain('AS4294967295:')
    await page.fill('#asn-input', 'banana')
    await page.press('#asn-input', 'Enter')
    const message = await page.textContent('#asn-error')
    expect(message).toContain('Not an ASN: banana.')
    expect(message).toContain('AS4294967295:')
    await page.close()
  }, 60_000)

  it('shows an empty store as such, with empty charts and no script error', async () => {
    const page = await context.newPage()
    const problems: string[] = []
    page.on('pageerror', (error) => problems.push(String(error)))
    await page.goto(`${empty.url}/?asns=3356&ip_version=ipv6`)
    await page.waitForSelector('#status[data-state="ready"]')
    expect(await page.textContent('#status')).toContain('No snapshot stored yet')
    await page.waitForSelector('#snapshot-chart[data-state="ready"]')
    const held = await chartPoints(page, ['max shell index'])
    expect(held).toEqual({ 'max shell index': [] })
    const unknown = await (await fetch(`${empty.url}/api/trends/3356?ip_version=ipv6`)).json()
    expect(await page.textContent('#asn-error')).toBe(`AS3356: ${unknown.message}`)
    expect(problems).toEqual([])
    await shot(page, '9-empty-store')
    await page.close()
  }, 60_000)

  it('shows the hovered date and each series value in the legend', async () => {
    const page = await openPage('/?asns=3356&ip_version=ipv4')
    const held = await chartPoints(page, ['AS3356', 'max shell index'])
    const over = page.locator('#trend-chart .u-over')
    const box = await over.boundingBox()
    // The far left and far right of the plot snap to the first and last snapshot.
    for (const [x, index] of [
      [1, 0],
      [(box?.width ?? 2) - 1, -1],
    ] as const) {
      await over.hover({ position: { x, y: (box?.height ?? 2) / 2 } })
      const values = await page.locator('#trend-chart .u-legend .u-value').allTextContents()
      const [date, shell] = held.AS3356?.at(index) ?? []
      expect(values.slice(0, 2)).toEqual([date, String(shell)])
    }
    await page.close()
  }, 60_000)

  it('is usable with the keyboard alone and fits a phone-width screen', async () => {
    const page = await openPage()
    await page.setViewportSize({ width: 375, height: 800 })
    await page.focus('#asn-input')
    await page.keyboard.type('AS3356 174 15169')
    await page.keyboard.press('Enter')
    await chartPoints(page, LABELS)
    // Backspace in the empty input removes the last ASN.
    await page.keyboard.press('Backspace')
    await chartPoints(page, ['AS3356', 'AS174', 'max shell index'])
    // Tab back to the chip's remove button and press it.
    await page.focus('#asn-chips button[data-asn="174"]')
    await page.keyboard.press('Enter')
    await chartPoints(page, ['AS3356', 'max shell index'])
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('asn-input')
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    )
    expect(overflow).toBeLessThanOrEqual(0)
    await shot(page, '8-phone')
    await page.close()
  }, 60_000)
})
