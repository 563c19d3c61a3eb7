import type { BrowserContext, Page } from 'playwright-core'
import { expect } from 'vitest'

// What the explorer browser suites share: the API read beside the page, and the chart's points
// read from its data-points attribute (written from the chart's own arrays).

export interface TrendPoint {
  date: string
  shell_index: number
  max_shell_index: number
  normalized_shell_index: number
}

/** Each chart series by its label, as `[date, value]` pairs. */
export type Held = Record<string, [string, number][]>

/** Reads `path` of the server at `baseUrl` as JSON. */
export async function api<T>(baseUrl: string, path: string): Promise<{ status: number; body: T }> {
  const response = await fetch(`${baseUrl}${path}`)
  return { status: response.status, body: (await response.json()) as T }
}

/** The API's trend of each ASN, as the `[date, value]` pairs the chart should hold. */
export async function expectedPoints(
  baseUrl: string,
  asns: number[],
  query: Record<string, string>,
  normalized = false,
): Promise<Held> {
  const held: Held = {}
  for (const asn of asns) {
    const { body } = await api<{ trend_data: TrendPoint[] }>(
      baseUrl,
      `/api/trends/${asn}?${new URLSearchParams(query)}`,
    )
    held[`AS${asn}`] = body.trend_data.map((p) => [
      p.date,
      normalized ? p.normalized_shell_index : p.shell_index,
    ])
  }
  return held
}

/** The snapshots' maximum shell index, as the chart's reference series should hold it. */
export async function expectedReference(baseUrl: string): Promise<[string, number][]> {
  const { body } = await api<{ ipv4: { date: string; max_shell_index: number }[] }>(
    baseUrl,
    '/api/snapshots?ip_version=ipv4',
  )
  return body.ipv4.map((s) => [s.date, s.max_shell_index])
}

/** Waits until the chart shows exactly `labels` and has finished loading; returns its points. */
export async function chartPoints(page: Page, labels: string[]): Promise<Held> {
  const chart = page.locator('#trend-chart')
  await page.waitForFunction((want) => {
    const el = document.getElementById('trend-chart')
    return el?.dataset.state === 'ready' && el.dataset.series === want
  }, JSON.stringify(labels))
  return JSON.parse((await chart.getAttribute('data-points')) ?? '{}') as Held
}

/** A new tab on `path` of the server, failing on any script error or CSP violation. */
export async function openPage(
  context: BrowserContext,
  baseUrl: string,
  path = '/',
): Promise<Page> {
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(String(error)))
  page.on('console', (message) => {
    // Error answers the page asked for are logged by Chromium too; those are expected.
    const expected = message.text().startsWith('Failed to load resource')
    if (message.type() === 'error' && !expected) problems.push(message.text())
  })
  await page.goto(`${baseUrl}${path}`)
  await page.waitForSelector('#status[data-state="ready"]')
  expect(problems).toEqual([])
  return page
}
