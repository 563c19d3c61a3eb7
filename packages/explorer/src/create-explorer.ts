import { Buffer } from 'node:buffer'
import { loadPageAssets, type PageAssets } from './page-assets.js'
import { HTML_HEADERS, IMMUTABLE_CACHE } from './page-headers.js'

/** Options of {@link createExplorer}. */
export interface ExplorerOptions {
  /** Folder holding the built page (`manifest.json`); default: this package's `dist/`. */
  dist?: URL
}

/**
 * Serves the page: answers `GET /` (any query: the view state lives there) and the hashed
 * assets under `/assets/`, and `undefined` for every other request, so the host's router goes on.
 */
export type Explorer = (request: Request) => Promise<Response | undefined>

/**
 * Creates the explorer. The built files are read on the first request and kept in memory; when
 * the package was never built that request gets a 503 saying so (and the next one tries again).
 */
export function createExplorer(options: ExplorerOptions = {}): Explorer {
  let loading: Promise<PageAssets> | undefined
  const load = () => {
    loading ??= loadPageAssets(options.dist).catch((error: unknown) => {
      loading = undefined
      throw error
    })
    return loading
  }

  return async (request) => {
    if (request.method !== 'GET') return undefined
    const path = new URL(request.url).pathname
    if (path !== '/' && !path.startsWith('/assets/')) return undefined
    let page: PageAssets
    try {
      page = await load()
    } catch {
      return notBuilt()
    }
    // Every body is measured here: the handler streams a body without a length as is.
    if (path === '/') {
      const length = String(Buffer.byteLength(page.html, 'utf8'))
      // Headers objects throughout: what a host's core sets on them survives a lightweight
      // Response (@hono/node-server's) rebuilding itself from its init.
      return new Response(page.html, {
        headers: new Headers({ ...HTML_HEADERS, 'content-length': length }),
      })
    }
    const asset = page.assets.get(path)
    if (!asset) return undefined
    return new Response(asset.body, {
      headers: new Headers({
        'content-type': asset.type,
        'content-length': String(asset.body.byteLength),
        'cache-control': IMMUTABLE_CACHE,
        'x-content-type-options': 'nosniff',
      }),
    })
  }
}

function notBuilt(): Response {
  const message = 'The explorer page is not built: run `pnpm --filter @kcore/explorer build`'
  const body = JSON.stringify({ error: 'explorer_not_built', message, status: 503 })
  return new Response(body, {
    status: 503,
    headers: new Headers({
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body, 'utf8')),
    }),
  })
}
