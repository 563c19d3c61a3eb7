/**
 * The trend explorer: a web page over the public `/api` (AS k-core trends as charts), prebuilt
 * into this package's `dist/` and served by a fetch-style function that `createHandler` of
 * `@kcore/http-adapter` mounts at `/`.
 */
export { createExplorer, type Explorer, type ExplorerOptions } from './create-explorer.js'
export { loadPageAssets, type PageAssets, type PageManifest } from './page-assets.js'
export { CONTENT_SECURITY_POLICY, IMMUTABLE_CACHE } from './page-headers.js'
