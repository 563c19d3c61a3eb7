/**
 * The public base URL every absolute link is built from (common.md "Links"). Only an origin:
 * routing and the calendar's WordPress paths are absolute, so a path prefix could not be honoured
 * (a proxy that mounts the service under a prefix rewrites paths itself).
 */
export function parsePublicUrl(value: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new TypeError('must be an absolute http(s) URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError('must be an absolute http(s) URL')
  }
  if (url.search !== '' || url.hash !== '' || value.includes('?') || value.includes('#')) {
    throw new TypeError('must not have a query or fragment')
  }
  if (url.username !== '' || url.password !== '') {
    throw new TypeError('must not carry credentials')
  }
  if (url.pathname !== '/') throw new TypeError('must be an origin without a path')
  return url.origin
}

/** Links when no public URL is configured (the CLI passes `http://localhost:PORT`). */
export const DEFAULT_PUBLIC_URL = 'http://localhost'

/**
 * The request as the APIs see it: its path and query under the public origin, so neither the
 * `Host` header nor the URL the host built from it can steer a link.
 */
export function atPublicOrigin(request: Request, origin: string): Request {
  const url = new URL(request.url)
  if (url.origin === origin) return request
  const init: RequestInit & { duplex?: 'half' } = {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
  }
  if (request.body) {
    init.body = request.body
    init.duplex = 'half'
  }
  return new Request(`${origin}${url.pathname}${url.search}`, init)
}
