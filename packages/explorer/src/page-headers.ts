/**
 * The page's Content-Security-Policy: its own script and stylesheet only, same-origin API calls,
 * images from the page itself (the PNG export's blob:, the empty data: favicon), no framing, no
 * inline script or style (uPlot styles through the CSSOM, which CSP allows).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

/** Headers of the HTML document: revalidated on every load, so a deploy is seen at once. */
export const HTML_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-cache',
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
}

/** Hashed assets never change under their name: cached for a year without revalidation. */
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable'
