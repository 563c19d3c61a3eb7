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
