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
 * A response of JSON text already serialized, with the house content type and its
 * `Content-Length` (so the handler need not buffer it again to measure it).
 */
export function jsonTextResponse(
  text: string,
  status = 200,
  headers: Record<string, string> = {},
): Response {
  // The text goes in as is (encoded once, by the Response); Buffer.byteLength measures the
  // UTF-8 bytes without encoding them.
  return new Response(text, {
    status,
    headers: {
      'content-type': JSON_CONTENT_TYPE,
      'content-length': String(Buffer.byteLength(text, 'utf8')),
      ...headers,
    },
  })
}

/** A response of JSON already encoded as UTF-8, with the house content type and its length. */
export function jsonBytesResponse(bytes: Uint8Array<ArrayBuffer>, status = 200): Response {
  // Bytes go to the socket as they are (a host's lightweight Response writes them directly).
  return new Response(bytes, {
    status,
    headers: { 'content-type': JSON_CONTENT_TYPE, 'content-length': String(bytes.byteLength) },
  })
}
