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
  // The body goes in as is (text encoded once, by the Response; bytes written directly by a
  // host's lightweight Response); Buffer.byteLength measures text without encoding it.
  const length = typeof json === 'string' ? Buffer.byteLength(json, 'utf8') : json.byteLength
  return new Response(json, {
    status,
    headers: {
      'content-type': JSON_CONTENT_TYPE,
      'content-length': String(length),
      ...headers,
    },
  })
}
