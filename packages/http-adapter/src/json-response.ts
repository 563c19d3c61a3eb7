import { Buffer } from 'node:buffer'

/** The one JSON content type every response of both APIs carries. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

/** A JSON response with the house content type. */
export function jsonResponse(
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): Response {
  return jsonTextResponse(JSON.stringify(body), status, headers)
}

/**
 * A response of JSON already serialized, as text or as its UTF-8 bytes, with the house content
 * type and its `Content-Length` (so the handler need not buffer it again to measure it).
 */
export function jsonTextResponse(
  json: string | Uint8Array<ArrayBuffer>,
  status = 200,
  headers: Record<string, string> = {},
): Response {
  return measuredResponse(json, status, { 'content-type': JSON_CONTENT_TYPE, ...headers })
}

/**
 * A response whose whole body is made here, with its `Content-Length`: the core streams every
 * body without one as is, so a body known whole is measured by its maker. The body goes in as
 * is (text encoded once, by the Response; bytes written directly by a host's lightweight
 * Response); `Buffer.byteLength` measures text without encoding it.
 */
export function measuredResponse(
  body: string | Uint8Array<ArrayBuffer>,
  status: number,
  headers: Record<string, string>,
): Response {
  const length = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength
  // A Headers object, not a record: a host's lightweight Response (@hono/node-server's) hands
  // that same object out as `headers`, so what the core sets on it (ETag, nosniff) survives the
  // lightweight Response rebuilding itself from its init once its body is read.
  const all = new Headers(headers)
  all.set('content-length', String(length))
  return new Response(body, { status, headers: all })
}
