import { readFile } from 'node:fs/promises'

/** `dist/manifest.json`, written by `scripts/build-page.mjs`. */
export interface PageManifest {
  html: { file: string; sha256: string }
  entry: { js: string; css: string }
  /** By URL path (`/assets/explorer-HASH.js`). */
  assets: Record<string, { file: string; type: string; sha256: string; bytes: number }>
}

/** The built page in memory: the HTML and every hashed asset by its URL path. */
export interface PageAssets {
  manifest: PageManifest
  html: string
  assets: Map<string, { body: Uint8Array<ArrayBuffer>; type: string }>
}

/**
 * The package's `dist/`, both from `dist/index.js` (published) and `src/*.ts` (workspace
 * tests run the sources): `../dist/` is the same folder from either place.
 */
export const DEFAULT_DIST = new URL('../dist/', import.meta.url)

/** Reads the manifest and the files it lists (only those: nothing else is ever served). */
export async function loadPageAssets(dist: URL = DEFAULT_DIST): Promise<PageAssets> {
  const manifest = JSON.parse(
    await readFile(new URL('manifest.json', dist), 'utf8'),
  ) as PageManifest
  const html = await readFile(new URL(manifest.html.file, dist), 'utf8')
  const assets: PageAssets['assets'] = new Map()
  for (const [path, asset] of Object.entries(manifest.assets)) {
    const body = new Uint8Array(await readFile(new URL(asset.file, dist)))
    assets.set(path, { body, type: asset.type })
  }
  return { manifest, html, assets }
}
