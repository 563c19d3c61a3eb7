import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { loadPageAssets } from '../src/index.js'

// The real build in dist/ (pnpm --filter @kcore/explorer build): budget, hashes, references.
/** The budget for the page's JS and CSS together, gzipped. */
export const BUDGET_GZIP_BYTES = 120 * 1024

describe('the built page', () => {
  it(`stays within ${BUDGET_GZIP_BYTES / 1024} KB of gzipped JS and CSS`, async () => {
    const page = await loadPageAssets()
    let total = 0
    for (const [path, asset] of page.assets) {
      const gzipped = gzipSync(asset.body, { level: 9 }).length
      console.log(`${path}: ${asset.body.length} B, ${gzipped} B gzipped`)
      total += gzipped
    }
    console.log(`explorer bundle: ${total} B gzipped in all (budget ${BUDGET_GZIP_BYTES} B)`)
    expect(page.assets.size).toBe(2)
    expect(total).toBeLessThanOrEqual(BUDGET_GZIP_BYTES)
  })

  it('names every asset by its content and references exactly those from the HTML', async () => {
    const page = await loadPageAssets()
    const { js, css } = page.manifest.entry
    expect(js).toMatch(/^\/assets\/explorer-[A-Z0-9]{8}\.js$/)
    expect(css).toMatch(/^\/assets\/explorer-[A-Z0-9]{8}\.css$/)
    expect(page.html).toContain(`<script type="module" src="${js}">`)
    expect(page.html).toContain(`<link rel="stylesheet" href="${css}">`)
    expect(page.html).not.toMatch(/<script>|<style|style=|https?:\/\//)
    for (const [path, asset] of page.assets) {
      const sha = createHash('sha256').update(asset.body).digest('base64url')
      expect(page.manifest.assets[path]?.sha256).toBe(sha)
    }
    // No URL to another origin in the bundle's fetches: the page only talks to its own /api.
    const bundle = await readFile(new URL(`../dist${js}`, import.meta.url), 'utf8')
    expect(bundle).toContain('/api/trends/')
    expect(bundle).not.toMatch(/fetch\(["'`]https?:/)
  })
})
