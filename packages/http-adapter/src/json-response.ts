/** The one JSON content type every response of both APIs carries. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

/** A JSON response with the house content type. */
export function jsonResponse(
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': JSON_CONTENT_TYPE, ...headers },
  })
}
