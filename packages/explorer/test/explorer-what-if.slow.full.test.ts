import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../../http-adapter/test/chromium.js'
import { openPage as openPageOf } from '../../http-adapter/test/explorer-page.js'
import { type NamedServer, startNamedServer } from './named-server.js'

// The explorer's "What if" panel in a real Chromium against a server with the real CAIDA sample
// snapshots (named-server.ts): the answer on the page is the API's, the histogram is drawn, and
// every error answer is said in the panel.
let server: NamedServer
let browser: Awaited<ReturnType<typeof launchChromium>>

/** The sample whose links the suite deletes, so its what-if answers 409. */
const NO_LINKS = '1998-01-01'

beforeAll(async () => {
  server = await startNamedServer()
  // A snapshot stored before its links were (migration 0010): what an old database holds.
  await sql`delete from kcore_snapshot_links where snapshot_date = ${NO_LINKS}`.execute(
    server.database.db,
  )
  browser = await launchChromium()
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

const openPage = (path = '/') => openPageOf(browser.context, server.url, path)
type Page = Awaited<ReturnType<typeof openPage>>

interface Change {
  asn: number
  before: number | null
  after: number | null
}

/** `POST /api/what-if`'s answer, or its error envelope (`message`). */
interface Answer {
  max_shell_before: number
  max_shell: number
  counts: { changed: number }
  changes: Change[]
  message: string
}

async function askApi(body: object): Promise<{ status: number; body: Answer }> {
  const response = await fetch(`${server.url}/api/what-if`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as Answer }
}

/** Waits for the panel's answer (or error) and reads what it shows. */
async function shown(page: Page, state: 'ready' | 'error') {
  await page.waitForSelector(`#what-if-result[data-state="${state}"]`)
  if (state === 'ready') await page.waitForSelector('#what-if-drops[data-names="ready"]')
  return page.evaluate(() => ({
    rows: [...document.querySelectorAll('#what-if-drops tbody tr')].map((row) =>
      [...row.children].map((cell) => cell.textContent),
    ),
    more: document.getElementById('what-if-more')?.textContent,
    summary: document.getElementById('what-if-summary')?.textContent,
    error: document.getElementById('what-if-error')?.textContent,
    histogram: document.getElementById('what-if-histogram')?.hidden
      ? null
      : (JSON.parse(document.getElementById('what-if-histogram')?.dataset.points ?? 'null') as {
          shells: number[]
          before: number[]
          after: number[]
        }),
    bars: document.querySelectorAll(
      '#what-if-histogram .pair rect.bar-before, #what-if-histogram .pair rect.bar-after',
    ).length,
    tableHidden: document.getElementById('what-if-drops')?.hidden,
  }))
}

describe('the explorer what-if panel', () => {
  it('removes an AS and shows who drops, exactly as the API answers, and the histogram', async () => {
    const page = await openPage()
    await page.selectOption('#what-if-date', '2015-01-01')
    await page.fill('#what-if-asn-input', '174')
    await page.press('#what-if-asn-input', 'Enter')
    await expect
      .poll(() => page.textContent('#what-if-chips li[data-asn="174"] .chip-label'))
      .toBe('AS174 Cogent Communications')
    await page.click('#what-if-run')
    const view = await shown(page, 'ready')
    expect(new URL(page.url()).searchParams.get('what_if')).toBe('2015-01-01')
    expect(new URL(page.url()).searchParams.get('remove')).toBe('174')

    const api = await askApi({ date: '2015-01-01', ip_version: 'ipv4', remove_asns: [174] })
    expect(api.status).toBe(200)
    const changes = api.body.changes
    const drops = changes
      .filter(
        (c): c is { asn: number; before: number; after: number } =>
          c.before !== null && c.after !== null,
      )
      .sort((a, b) => b.before - b.after - (a.before - a.after) || a.asn - b.asn)
    expect(drops.length).toBeGreaterThan(200)
    // The table: the first 200 drops, largest first, each AS named when the registry has it.
    const names: Record<number, string> = {
      3356: 'AS3356 Level 3 Parent, LLC',
      13335: 'AS13335 Cloudflare, Inc.',
    }
    expect(view.rows).toEqual(
      drops
        .slice(0, 200)
        .map((d) => [
          names[d.asn] ?? `AS${d.asn}`,
          String(d.before),
          String(d.after),
          String(d.before - d.after),
        ]),
    )
    expect(view.more).toBe(
      `${(drops.length - 200).toLocaleString('en')} more ASes drop less (not listed).`,
    )
    expect(view.summary).toContain(
      `largest shell index ${api.body.max_shell_before} → ${api.body.max_shell}; ${api.body.counts.changed.toLocaleString('en')} ASes change shell index`,
    )
    expect(view.error).toBe('')

    // The histogram: the snapshot's distribution before; after, the same ASes less the removed one.
    const distribution = (await (
      await fetch(`${server.url}/api/snapshots/2015-01-01/distribution?ip_version=ipv4`)
    ).json()) as { unique_asns: number; shells: { shell_index: number; count: number }[] }
    const histogram = view.histogram
    expect(histogram).not.toBeNull()
    if (!histogram) return
    for (const { shell_index, count } of distribution.shells)
      expect(histogram.before[histogram.shells.indexOf(shell_index)]).toBe(count)
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0)
    expect(sum(histogram.before)).toBe(distribution.unique_asns)
    expect(sum(histogram.after)).toBe(distribution.unique_asns - 1)
    // ASes whose only links were to AS174 are left in shell 0, and the histogram says so.
    const stranded = changes.filter((c) => c.after === 0).length
    expect(stranded).toBeGreaterThan(0)
    expect(histogram.shells[0]).toBe(0)
    expect(histogram.after[0]).toBe(stranded)
    expect(histogram.before).not.toEqual(histogram.after)
    expect(view.bars).toBe(2 * histogram.shells.length)

    // The link reproduces the answer in a fresh page.
    const copy = await openPage(new URL(page.url()).search)
    expect(await shown(copy, 'ready')).toEqual(view)
    expect(await copy.inputValue('#what-if-date')).toBe('2015-01-01')
    await Promise.all([page.close(), copy.close()])
  }, 120_000)

  it('says why there is no answer: links not stored (409), unknown date (404), bad input (400)', async () => {
    const api = await askApi({ date: NO_LINKS, remove_asns: [174] })
    expect(api.status).toBe(409)
    const page = await openPage(`/?what_if=${NO_LINKS}&remove=174`)
    const missing = await shown(page, 'error')
    expect(missing.error).toBe(
      `This snapshot's links are not stored, so no what-if can be answered on it: ${api.body.message}`,
    )
    expect(missing).toMatchObject({ summary: 'No answer.', histogram: null, tableHidden: true })

    const unknown = await askApi({ date: '1999-01-01', remove_asns: [174] })
    expect(unknown.status).toBe(404)
    await page.goto(`${server.url}/?what_if=1999-01-01&remove=174`)
    expect((await shown(page, 'error')).error).toBe(`No such snapshot: ${unknown.body.message}`)

    const bad = await askApi({ date: '2015-01-01', remove_asns: [99999999999] })
    expect(bad.status).toBe(400)
    await page.goto(`${server.url}/?what_if=2015-01-01&remove=99999999999`)
    expect((await shown(page, 'error')).error).toBe(`The question was refused: ${bad.body.message}`)
    await page.close()
  }, 120_000)

  it('shows only the newest question when one is asked while another is in flight', async () => {
    const page = await openPage()
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    let first = true
    // The first what-if is held at the network until the second has been answered.
    await page.route('**/api/what-if', async (route) => {
      if (!first) return route.continue()
      first = false
      await held
      await route.continue().catch(() => undefined) // the page aborted it
    })
    await page.selectOption('#what-if-date', '2010-01-01')
    await page.fill('#what-if-asn-input', '174')
    await page.press('#what-if-asn-input', 'Enter')
    await page.click('#what-if-run')
    await page.waitForSelector('#what-if-result[data-state="loading"]')
    const aborted = page.waitForEvent(
      'requestfailed',
      (request) => request.url().endsWith('/api/what-if') && request.method() === 'POST',
    )
    await page.selectOption('#what-if-date', '2015-01-01')
    await page.click('#what-if-run')
    const view = await shown(page, 'ready')
    // The first request was aborted by the second question, not merely outrun.
    expect((await aborted).failure()?.errorText).toMatch(/abort/i)
    release()
    expect(view.summary).toMatch(/^2015-01-01 IPv4:/)
    expect(new URL(page.url()).searchParams.get('what_if')).toBe('2015-01-01')
    await page.close()
  }, 120_000)
})
