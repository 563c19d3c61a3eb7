import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../../http-adapter/test/chromium.js'
import {
  chartPoints,
  expectedPoints,
  openPage as openPageOf,
} from '../../http-adapter/test/explorer-page.js'
import { type NamedServer, REGISTRY, startNamedServer } from './named-server.js'

// The explorer's names, AS panel, IPv4 + IPv6 view and data breaks in a real Chromium against a
// server with the sample snapshots and a tiny AS registry (named-server.ts).
let server: NamedServer
let browser: Awaited<ReturnType<typeof launchChromium>>

beforeAll(async () => {
  server = await startNamedServer()
  browser = await launchChromium()
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

const openPage = (path = '/') => openPageOf(browser.context, server.url, path)
type Page = Awaited<ReturnType<typeof openPage>>
const legendLabels = (page: Page) =>
  page.locator('#trend-chart .u-legend .u-series .u-label').allTextContents()
const options = (page: Page) => page.locator('#asn-suggestions [role="option"]')

describe('the explorer with AS names', () => {
  it('suggests ASes by name, picks one with the keyboard, and names it everywhere', async () => {
    const page = await openPage()
    await page.focus('#asn-input')
    await page.keyboard.type('cloud')
    await expect.poll(() => options(page).allTextContents()).toEqual(['AS13335 Cloudflare, Inc.'])
    expect(await page.getAttribute('#asn-input', 'aria-expanded')).toBe('true')
    await page.keyboard.press('ArrowDown')
    expect(await page.getAttribute('#asn-input', 'aria-activedescendant')).toBe('asn-suggestions-0')
    expect(await options(page).first().getAttribute('aria-selected')).toBe('true')
    await page.keyboard.press('Enter')
    const held = await chartPoints(page, ['AS13335', 'max shell index'])
    expect(held).toMatchObject(await expectedPoints(server.url, [13335], { ip_version: 'ipv4' }))
    expect(await page.isHidden('#asn-suggestions')).toBe(true)
    expect(await page.inputValue('#asn-input')).toBe('')
    expect(new URL(page.url()).search).toBe('?asns=13335&ip_version=ipv4&as=13335')
    expect(await legendLabels(page)).toContain('AS13335 Cloudflare, Inc.')
    expect(await page.textContent('#asn-chips li[data-asn="13335"] .chip-label')).toBe(
      'AS13335 Cloudflare, Inc.',
    )

    // The AS panel: name, the registry's caveat, address space, both versions' shells.
    await page.waitForFunction(() => document.querySelector('#as-panel dl')?.children.length)
    const panel = await page.textContent('#as-panel')
    expect(panel).toContain('AS13335 Cloudflare, Inc.')
    expect(panel).toContain(`Names from ${REGISTRY.source}, ${REGISTRY.date}; some rows are wrong.`)
    expect(panel).toContain('IPv4 space')
    expect(panel).toContain('/24s')
    expect(panel).toContain('/48s')
    expect(panel).toContain('IPv4 shell index')
    expect(panel).toContain('IPv6 shell index')

    // A number finds the AS too; Escape closes the list and Enter then adds what is typed.
    await page.fill('#asn-input', 'AS3356')
    await expect.poll(() => options(page).allTextContents()).toEqual(['AS3356 Level 3 Parent, LLC'])
    await page.keyboard.press('Escape')
    expect(await page.isHidden('#asn-suggestions')).toBe(true)
    await page.keyboard.press('Enter')
    await chartPoints(page, ['AS13335', 'AS3356', 'max shell index'])
    await expect.poll(() => legendLabels(page)).toContain('AS3356 Level 3 Parent, LLC')
    await page.close()
  }, 90_000)

  it('shows a hostile name as text, never markup, and an unnamed AS by its number', async () => {
    const page = await openPage('/?asns=174')
    await page.fill('#asn-input', 'hurricane')
    const name = 'AS6939 \u2068<script>window.hacked=1</script> "שלום" Hurricane\u2069'
    await expect.poll(() => options(page).allTextContents()).toEqual([name])
    await options(page).first().dispatchEvent('pointerdown')
    await chartPoints(page, ['AS174', 'AS6939', 'max shell index'])
    await expect.poll(() => legendLabels(page)).toContain(name)
    expect(await page.evaluate(() => (window as { hacked?: number }).hacked)).toBeUndefined()
    expect(
      await page.locator('#trend-chart script, #asn-chips script, #as-panel script').count(),
    ).toBe(0)

    // 64512 is in no snapshot and not in the registry: its chip says the number alone.
    const bare = await openPage('/?asns=3356,64512')
    await chartPoints(bare, ['AS3356', 'max shell index'])
    expect(await bare.textContent('#asn-chips li[data-asn="64512"] .chip-label')).toBe('AS64512')
    await Promise.all([page.close(), bare.close()])
  }, 90_000)

  it('draws IPv4 and IPv6 of one AS on one time axis, styled and labelled apart', async () => {
    const page = await openPage('/?asns=3356&ip_version=ipv4')
    await chartPoints(page, ['AS3356', 'max shell index'])
    await page.check('input[name="ip_version"][value="both"]')
    await page.waitForURL(/ip_version=both/)
    const labels = ['AS3356 IPv4', 'AS3356 IPv6', 'max shell index IPv4', 'max shell index IPv6']
    const held = await chartPoints(page, labels)
    const v4 = await expectedPoints(server.url, [3356], { ip_version: 'ipv4' })
    const v6 = await expectedPoints(server.url, [3356], { ip_version: 'ipv6' })
    expect(held['AS3356 IPv4']).toEqual(v4.AS3356)
    expect(held['AS3356 IPv6']).toEqual(v6.AS3356)
    expect(held['AS3356 IPv6']?.length).toBeGreaterThan(0)
    await expect
      .poll(() => legendLabels(page))
      .toEqual([
        'date',
        'AS3356 Level 3 Parent, LLC (IPv4)',
        'AS3356 Level 3 Parent, LLC (IPv6)',
        'max shell index (IPv4)',
        'max shell index (IPv6)',
      ])
    // One time axis: every date of either version, once.
    const copy = await openPage(new URL(page.url()).pathname + new URL(page.url()).search)
    expect(await chartPoints(copy, labels)).toEqual(held)
    await Promise.all([page.close(), copy.close()])
  }, 90_000)

  it('draws the chart while the names are held, then relabels it, never with a stale render', async () => {
    // 15169 is in no other case of this file, so the server has not answered its overview yet.
    const hold = server.hold(15169)
    const trendRequests: string[] = []
    const onRequest = (request: { url(): string }) => {
      if (new URL(request.url()).pathname.startsWith('/api/trends/'))
        trendRequests.push(request.url())
    }
    browser.context.on('request', onRequest)
    try {
      const page = await openPage('/?asns=15169&as=15169')
      await hold.reached
      const held = await chartPoints(page, ['AS15169', 'max shell index'])
      expect(held).toMatchObject(await expectedPoints(server.url, [15169], { ip_version: 'ipv4' }))
      expect(await legendLabels(page)).toEqual(['date', 'AS15169', 'max shell index'])
      expect(await page.textContent('#asn-chips .chip-label')).toBe('AS15169')
      expect(await page.textContent('#as-panel .registry')).toBe('Loading…')

      // A newer render (normalized) while the names are still held: the first render's relabel,
      // when they arrive, must not draw its raw values over it.
      const raw = await page.getAttribute('#trend-chart', 'data-points')
      // Every value written, however batched: each write's old value, then the last one.
      await page.evaluate(() => {
        const before: (string | null)[] = []
        Object.assign(window, { before })
        new MutationObserver((records) => before.push(...records.map((r) => r.oldValue))).observe(
          document.getElementById('trend-chart') as HTMLElement,
          { attributeFilter: ['data-points'], attributeOldValue: true },
        )
      })
      await page.check('#normalized')
      await chartPoints(page, ['AS15169', 'max shell index'])
      hold.release()
      await expect
        .poll(() => legendLabels(page))
        .toEqual(['date', 'AS15169 Google LLC', 'max shell index'])
      expect(await page.textContent('#asn-chips .chip-label')).toBe('AS15169 Google LLC')
      await page.waitForFunction(() => document.querySelector('#as-panel dl')?.children.length)
      const drawn = await page.evaluate(() => [
        ...(window as unknown as { before: string[] }).before.slice(1),
        document.getElementById('trend-chart')?.dataset.points,
      ])
      expect(drawn.length).toBe(2) // the normalized chart, then the same relabelled
      expect(drawn).not.toContain(raw)
      // One trend request per render: the relabelling fetched none.
      expect(trendRequests).toHaveLength(2)
      await page.close()
    } finally {
      hold.release()
      browser.context.off('request', onRequest)
    }
  }, 90_000)

  it('marks data breaks when the summary has them, and none when it has not', async () => {
    const page = await browser.context.newPage()
    await page.route('**/api/summary', async (route) => {
      const response = await route.fetch()
      const summary = await response.json()
      await route.fulfill({
        response,
        json: {
          ...summary,
          breaks: {
            items: [
              { date: '2012-01-01', what: 'Inference change', source: 'CAIDA', ip_version: 'ipv4' },
              { date: '2013-01-01', what: 'IPv6 only', source: 'CAIDA', ip_version: 'ipv6' },
              { date: '1990-01-01', what: 'Before the data', source: 'CAIDA' },
            ],
          },
        },
      })
    })
    await page.goto(`${server.url}/?asns=3356`)
    await chartPoints(page, ['AS3356', 'max shell index'])
    expect(await page.getAttribute('#trend-chart', 'data-breaks')).toBe('["2012-01-01"]')
    expect(await page.textContent('#trend-breaks')).toBe(
      '2012-01-01 (IPv4): Inference change — CAIDA',
    )
    // The service's own summary has the real table: a summary without one draws no line.
    const plain = await browser.context.newPage()
    await plain.route('**/api/summary', async (route) => {
      const response = await route.fetch()
      const { breaks: _, ...summary } = await response.json()
      await route.fulfill({ response, json: summary })
    })
    await plain.goto(`${server.url}/?asns=3356`)
    await chartPoints(plain, ['AS3356', 'max shell index'])
    expect(await plain.getAttribute('#trend-chart', 'data-breaks')).toBe('[]')
    await Promise.all([page.close(), plain.close()])
  }, 90_000)
})
